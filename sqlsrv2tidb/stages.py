"""The record of a run of several stages (`assess --connection`): which ran, failed or were left out, and why.

`api` strings the stages together and hands each to `Stages.run`; this module keeps what became of
them. A stage that fails (a `ToolError`: a server that refused or went away, a target that already
holds rows, an option the stage cannot take) is recorded with its message and becomes a finding
naming it (ST01), and the stages after it that do not need it still run; a stage that needs one that
failed or was left out is left out too, saying which. A stage whose inputs do not allow it (no read
query class to compare, no execution counts to take a replay's rate from) raises `LeftOut` with the
reason. Ctrl-C is no failure: the stage's own files keep what it did (the copy's checkpoint, the
classes compared), and the run stops saying that the same command continues it.

The record goes into assessment.json as `run` (the report's summary shows it) and, one line a stage,
to the user at the end, each stage said in one line from the file it wrote (`said_*`). The display while
the stages run is `progress.StageProgress`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import Interrupted, ToolError
from .model import Capture, Finding, Severity
from .progress import StageProgress, clock

T = TypeVar("T")

DONE, FAILED, LEFT_OUT = "done", "failed", "left out"


class LeftOut(Exception):
    """The stage's inputs do not allow it; the message says why (and how to give what it needs)."""


@dataclass
class StageRecord:
    name: str
    status: str = "not run"
    """done, failed or left out (not run: the run stopped before it)."""
    said: str = ""
    """What it did (its counts), or why it failed or was left out."""
    seconds: float = 0.0
    resumed: str | None = None
    """What it took over from an earlier run into the same OUT (a capture, a copy's checkpoint, classes judged)."""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "said": self.said, "seconds": round(self.seconds, 3),
                "resumed": self.resumed}

    def line(self) -> str:
        text = f"{self.name}: {self.status}" + (f" in {clock(self.seconds)}" if self.status == DONE else "")
        text += f": {self.said}" if self.said else ""
        return text + (f"; resumed: {self.resumed}" if self.resumed else "")


class Stages:
    """The stages of one run, in order, with the display that shows them."""

    def __init__(self, display: StageProgress) -> None:
        self.display = display
        self.records = {name: StageRecord(name) for name in display.names}

    def left_out(self, name: str, why: str) -> None:
        record = self.records[name]
        record.status, record.said = LEFT_OUT, why
        self.display.skip(name, why)

    def resumed(self, name: str, what: str) -> None:
        """The stage took `what` over from an earlier run; said now, and kept in the record."""
        self.records[name].resumed = what
        self.display.note(f"{self.display.mark(name)} resumed: {what}")

    def run(self, name: str, work: Callable[[], T], *, needs: Sequence[str] = (), counts: str = "",
            expected: float | None = None, said: Callable[[T], str] | None = None, fatal: bool = False) -> T | None:
        """Run one stage: its value, or None when it failed or was left out (recorded, and shown). A `fatal` stage's
        failure stops the run (every stage after it needs it): its error is raised once it is shown."""
        record = self.records[name]
        blocked = next((n for n in needs if self.records.get(n) and self.records[n].status in (FAILED, LEFT_OUT)), None)
        if blocked is not None:
            how = "failed" if self.records[blocked].status == FAILED else "was left out"
            self.left_out(name, f"it needs the {blocked} stage, which {how}")
            return None
        self.display.begin(name, counts, expected)
        try:
            value = work()
        except LeftOut as exc:
            record.status, record.said = LEFT_OUT, str(exc)
            record.seconds = self.display.end(f"left out: {exc}")
            return None
        except (Interrupted, KeyboardInterrupt):
            record.seconds = self.display.end("interrupted")
            raise Interrupted(f"interrupted in the {name} stage: run the same command again with the same -o folder "
                              "to continue") from None
        except ToolError as exc:
            record.status, record.said = FAILED, str(exc)
            record.seconds = self.display.end(f"failed: {exc}")
            if fatal:
                raise
            return None
        record.status, record.said = DONE, said(value) if said else ""
        record.seconds = self.display.end(f"done{': ' + record.said if record.said else ''}")
        return value

    def findings(self) -> list[Finding]:
        """ST01 for each stage that failed, naming the stages left out because of it."""
        found = []
        for record in self.records.values():
            if record.status != FAILED:
                continue
            waiting = [r.name for r in self.records.values()
                       if r.status == LEFT_OUT and r.said.startswith(f"it needs the {record.name} stage")]
            also = f"; left out because of it: {', '.join(waiting)}" if waiting else ""
            found.append(Finding("ST01", Severity.HIGH, f"{record.name} stage",
                                 f"the {record.name} stage failed: {record.said}{also}",
                                 details={"stage": record.name, "left_out": waiting}))
        return found

    def to_json(self) -> dict[str, Any]:
        return {"stages": [r.to_json() for r in self.records.values() if r.status != "not run"],
                "resumed": any(r.resumed for r in self.records.values())}

    def lines(self) -> list[str]:
        return [r.line() for r in self.records.values() if r.status != "not run"]


# What each stage of `assess --connection` did, in one line, from what it wrote.

def said_captured(capture: Capture) -> str:
    views = sum(1 for m in capture.database.modules if m.kind == "view")
    queries = capture.workload.queries
    return (f"{len(capture.database.tables)} table(s), {views} view(s), {len(queries)} query class(es)"
            + ("" if queries else " (no workload)"))


def said_copied(data: dict[str, Any]) -> str:
    """From data.json."""
    summary, tables = data.get("summary", {}), data.get("tables", [])
    failed = sum(1 for t in tables if t.get("status") == "failed")
    earlier = sum(1 for t in tables if t.get("status") == "already done")
    continued = sum(1 for t in tables if t.get("resumed") and t.get("status") != "already done")
    refused = summary.get("refused_by_target") or 0
    return (f"{summary.get('rows', 0):,} row(s) in {summary.get('tables', 0)} table(s): {summary.get('equal', 0)} "
            f"verified equal, {summary.get('different', 0)} different, {failed} failed"
            + (f"; {refused:,} row(s) refused by the target, named in data-rejects.jsonl" if refused else "")
            + (f"; {earlier} already loaded by the earlier run" if earlier else "")
            + (f", {continued} continued where it stopped" if continued else ""))


def said_judged(compare: dict[str, Any]) -> str:
    """From compare.json."""
    summary = compare.get("summary", {})
    return (f"{summary.get('classes', 0)} class(es): {summary.get('same', 0)} same, {summary.get('same_up_to_ties', 0)} "
            f"same up to ties, {summary.get('differs', 0)} differ, {summary.get('error', 0)} error, "
            f"{summary.get('not_comparable', 0)} not comparable"
            + (f"; {summary['kept']} kept as the earlier run judged them" if summary.get("kept") else ""))


def said_replayed(replay: dict[str, Any]) -> str:
    """From replay.json."""
    return f"{replay.get('achieved_qps') or 0:.1f} of {replay.get('target_qps') or 0:.1f} queries per second"


def replay_length(config: Any) -> float | None:
    """A replay's length as its options fix it (the warm-up and each step), or None (--timed: the events')."""
    if config is None or config.timed:
        return None
    steps = len(config.ramp.rates()) if config.ramp else 1
    return config.warmup + config.duration * steps
