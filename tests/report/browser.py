"""A small DevTools-protocol client for Debian's headless Chromium, over `--remote-debugging-pipe`.

The pipe transport (JSON messages separated by NUL on file descriptors 3 and 4) needs no websocket
library and no free port. The tests use it to open a report from disk, collect every console
message, uncaught exception, log entry and network request, evaluate expressions in the page and
take screenshots.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio",
)


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None)
        if found:
            return found
    return None


@dataclass
class PageLog:
    console: list[dict[str, Any]] = field(default_factory=list)
    exceptions: list[dict[str, Any]] = field(default_factory=list)
    log_entries: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        """Everything that counts as a console error: console.error/assert, exceptions, error-level log entries."""
        out = [f"console.{m.get('type')}: {[a.get('value', a.get('description')) for a in m.get('args', [])]}"
               for m in self.console if m.get("type") in ("error", "assert")]
        out += [f"exception: {e.get('exceptionDetails', {}).get('text')} "
                f"{e.get('exceptionDetails', {}).get('exception', {}).get('description', '')}" for e in self.exceptions]
        out += [f"log {e.get('entry', {}).get('source')}: {e.get('entry', {}).get('text')}" for e in self.log_entries
                if e.get("entry", {}).get("level") == "error"]
        return out


class Chromium:
    """One headless browser with one page; use as a context manager."""

    def __init__(self, width: int = 1280, height: int = 900, timeout: float = 30.0) -> None:
        binary = chromium_path()
        if binary is None:
            raise RuntimeError("Chromium is not installed: scripts/test installs Debian's chromium package")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="sqlsrv2tidb-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def wire() -> None:  # runs in the child: Chromium reads commands on fd 3, answers on fd 4
            high_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)  # out of the way first: either may be 3 or 4
            high_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)  # dup2 makes inheritable copies; everything else Python opened is not inherited
            os.dup2(high_w, 4)

        self.process = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe",
             f"--window-size={width},{height}", "about:blank"],
            close_fds=False, preexec_fn=wire, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []
        self.log = PageLog()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=True)

    # -- protocol ---------------------------------------------------------------------------------

    def _send(self, method: str, params: dict[str, Any] | None, session: bool) -> int:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(message).encode("utf-8") + b"\0")
        return self._id

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self._from_chrome], [], [], remaining)
            if ready:
                chunk = os.read(self._from_chrome, 1 << 20)
                if not chunk:
                    raise EOFError("Chromium closed the DevTools pipe")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message = json.loads(raw)
        if "method" in message:
            self._record(message)
        return message

    def _record(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            self.log.console.append(params)
        elif method == "Runtime.exceptionThrown":
            self.log.exceptions.append(params)
        elif method == "Log.entryAdded":
            self.log.log_entries.append(params)
        elif method == "Network.requestWillBeSent":
            self.log.requests.append(params.get("request", {}).get("url", ""))

    def call(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> dict[str, Any]:
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._receive(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def wait_for(self, method: str, timeout: float | None = None) -> dict[str, Any]:
        deadline = time.monotonic() + (timeout or self.timeout)
        seen = len(self.events)
        while True:
            for event in self.events[seen:]:
                if event["method"] == method:
                    return event
            seen = len(self.events)
            self._receive(deadline)

    # -- page -------------------------------------------------------------------------------------

    def open(self, path: Path) -> float:
        """Load a file and wait for its load event; returns the seconds it took."""
        start = time.monotonic()
        self.events.clear()
        self.call("Page.navigate", {"url": path.resolve().as_uri()}, session=True)
        self.wait_for("Page.loadEventFired")
        return time.monotonic() - start

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                           session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def screenshot(self, full_page: bool = False) -> bytes:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        return base64.b64decode(self.call("Page.captureScreenshot", params, session=True)["data"])

    def close(self) -> None:
        try:
            self._send("Browser.close", None, False)
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait(timeout=10)
        finally:
            for fd in (self._to_chrome, self._from_chrome):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
