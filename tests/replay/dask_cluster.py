"""A real, local Dask cluster for the cluster replay tests: `dask scheduler` and `dask worker` processes.

The processes are the ones a user starts on their machines (`python -m dask scheduler`, `python -m
dask worker ADDRESS`), here on loopback, each logging to its own file so a test can read what Dask
wrote. Workers run without a nanny, one thread each, so killing one's process is a worker lost for
good (a nanny would start a new one under a new address). Workers import this checkout's package
(PYTHONPATH), as an installed tool would be imported on a worker machine.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import distributed
from servers import free_port

ROOT = Path(__file__).resolve().parents[2]


class LocalDask:
    """A scheduler and `workers` worker processes on 127.0.0.1; `address` is what `--cluster` takes."""

    def __init__(self, basedir: Path, workers: int = 3, env: dict[str, str] | None = None,
                 preload: dict[int, str] | None = None) -> None:
        self.basedir = basedir
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "replay")]),
                    **(env or {})}
        self.scheduler: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self.count = workers
        self.preload = preload or {}
        """worker number -> a module each such worker loads first (`dask worker --preload`)."""

    def log(self, name: str) -> Path:
        return self.basedir / f"{name}.log"

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen:
        out = open(self.log(name), "wb")  # noqa: SIM115 - the process owns the file until it exits
        return subprocess.Popen([sys.executable, "-m", "dask", *args], stdout=out, stderr=subprocess.STDOUT,
                                env=self.env, cwd=self.basedir, start_new_session=True)

    def start(self) -> LocalDask:
        self.basedir.mkdir(parents=True, exist_ok=True)
        self.scheduler = self._spawn("scheduler", ["scheduler", "--host", "127.0.0.1", "--port", str(self.port),
                                                   "--no-dashboard"])
        for number in range(self.count):
            self.add_worker(number)
        self.wait_for_workers(self.count)
        return self

    def add_worker(self, number: int) -> None:
        preload = ["--preload", self.preload[number]] if number in self.preload else []
        self.workers.append(self._spawn(f"worker-{number}", [
            "worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", f"w{number}",
            "--host", "127.0.0.1", "--death-timeout", "20", *preload]))

    def wait_for_workers(self, count: int, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.scheduler is not None and self.scheduler.poll() is not None:
                raise RuntimeError(f"dask scheduler exited: {self.log('scheduler').read_text()[-2000:]}")
            try:
                with distributed.Client(self.address, timeout=5) as client:
                    client.wait_for_workers(count, timeout=max(1.0, deadline - time.monotonic()))
                    return
            except (OSError, TimeoutError):
                time.sleep(0.5)
        logs = "\n".join(self.log(f"worker-{n}").read_text()[-800:] for n in range(len(self.workers)))
        raise RuntimeError(f"{count} Dask workers did not join in {timeout:.0f}s:\n{logs}")

    def worker_pids(self) -> list[int]:
        return [p.pid for p in self.workers]

    def kill_worker(self, number: int) -> None:
        """The worker's process dies at once, as a crashed machine's would."""
        self.workers[number].kill()
        self.workers[number].wait()

    def stop(self) -> None:
        for proc in [*self.workers, self.scheduler]:
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in [*self.workers, self.scheduler]:
            if proc is None:
                continue
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
