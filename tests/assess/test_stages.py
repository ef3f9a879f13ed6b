"""The record and the display of a run's stages (stages.py, progress.StageProgress), without a server.

The display is read from what it hands the progress it wraps; its clock is given, so no test depends on
how long anything takes.
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from sqlsrv2tidb.errors import ConnectionFailed, Interrupted, UsageError
from sqlsrv2tidb.progress import StageProgress
from sqlsrv2tidb.stages import LeftOut, Stages


class Recorded:
    """A progress that keeps every line and task description it is given."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    @contextmanager
    def task(self, description: str, total: int | None = None):
        self.lines.append(f"task {description}")
        recorded = self

        class Task:
            def advance(self, n: int = 1) -> None:
                pass

            def update(self, text: str) -> None:
                recorded.lines.append(f"update {text}")

        yield Task()

    def note(self, line: str) -> None:
        self.lines.append(line)


def _stages(*names: str) -> tuple[Stages, Recorded]:
    ticks = iter(range(0, 10_000, 30))
    shown = Recorded()
    return Stages(StageProgress(shown, names, now=lambda: float(next(ticks)))), shown


def test_each_stage_shows_its_place_counts_elapsed_and_expected_time_and_marks_its_tasks():
    stages, shown = _stages("capture", "replay", "report")

    def capture() -> int:
        with stages.display.task("Reading the catalog", total=3) as task:
            task.update("Reading the catalog: 2 of 3")
        return 5

    assert stages.run("capture", capture, counts="the catalog of sql1/sales", said=lambda n: f"{n} table(s)") == 5
    stages.run("replay", lambda: None, counts="6 query class(es)", expected=65.0)
    assert shown.lines == [
        "[1/3 capture] the catalog of sql1/sales (0:30 elapsed)",
        "task [1/3 capture] Reading the catalog",
        "update [1/3 capture] Reading the catalog: 2 of 3",
        "[1/3 capture] done: 5 table(s) (0:30)",
        "[2/3 replay] 6 query class(es) (1:30 elapsed, about 1:05 expected)",
        "[2/3 replay] done (0:30)",
    ]
    assert stages.lines() == ["capture: done in 0:30: 5 table(s)", "replay: done in 0:30"]


def test_a_failed_stage_is_a_finding_and_the_stages_that_need_it_are_left_out():
    stages, shown = _stages("capture", "plan", "data", "compare", "replay", "report")
    stages.run("capture", lambda: "capture")
    stages.run("plan", lambda: "plan")

    def data() -> None:
        raise ConnectionFailed("mysql://root@tidb:4000/sales: Access denied (MySQL error 1045)")

    assert stages.run("data", data, needs=["capture"]) is None
    assert stages.run("compare", lambda: "never", needs=["capture", "data"]) is None
    assert stages.run("replay", lambda: "replayed", needs=["plan"]) == "replayed"
    assert "[4/6 compare] left out: it needs the data stage, which failed" in shown.lines
    assert [(r.name, r.status) for r in stages.records.values()] == [
        ("capture", "done"), ("plan", "done"), ("data", "failed"), ("compare", "left out"), ("replay", "done"),
        ("report", "not run")]
    found = stages.findings()
    assert [(f.rule, f.severity.value, f.object) for f in found] == [("ST01", "high", "data stage")]
    assert found[0].message == ("the data stage failed: mysql://root@tidb:4000/sales: Access denied (MySQL error "
                                "1045); left out because of it: compare")
    assert [s["name"] for s in stages.to_json()["stages"]] == ["capture", "plan", "data", "compare", "replay"]


def test_a_stage_its_inputs_do_not_allow_is_left_out_without_a_finding():
    stages, _ = _stages("compare", "report")

    def compare() -> None:
        raise LeftOut("no query class is a read with a TiDB statement")

    assert stages.run("compare", compare) is None
    assert stages.records["compare"].status == "left out" and stages.findings() == []
    assert stages.lines() == ["compare: left out: no query class is a read with a TiDB statement"]


def test_a_fatal_stage_stops_the_run_and_ctrl_c_says_how_to_continue():
    stages, _ = _stages("plan", "data", "report")

    def plan() -> None:
        raise UsageError("--config x.yaml: no such file")

    with pytest.raises(UsageError, match="no such file"):
        stages.run("plan", plan, fatal=True)

    def data() -> None:
        raise KeyboardInterrupt

    with pytest.raises(Interrupted) as stopped:
        stages.run("data", data)
    assert str(stopped.value) == ("interrupted in the data stage: run the same command again with the same -o "
                                  "folder to continue")


def test_what_a_stage_takes_over_from_an_earlier_run_is_said_and_kept():
    stages, shown = _stages("capture", "report")

    def capture() -> str:
        stages.resumed("capture", "the capture in out/capture is kept; --restart captures again")
        return "capture"

    stages.run("capture", capture)
    assert "[1/2 capture] resumed: the capture in out/capture is kept; --restart captures again" in shown.lines
    assert stages.to_json() == {"stages": [{"name": "capture", "status": "done", "said": "", "seconds": 30.0,
                                            "resumed": "the capture in out/capture is kept; --restart captures again"}],
                                "resumed": True}
