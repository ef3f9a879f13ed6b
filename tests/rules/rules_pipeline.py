"""Runs a rule's YAML example through the real stages: read, translate, plan, check.

The example is written where a user would keep it (schema.sql, workload.sql, workload.yaml, or the
file name a `file` example gives) and read back through `api.read`, so what a rule claims in its
YAML is checked against the same code path a DBA runs. The codes of every finding and translation
note are collected, whichever stage raised them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlsrv2tidb import api
from sqlsrv2tidb.model import Capture, Finding
from sqlsrv2tidb.options import Options, Version
from sqlsrv2tidb.rules.catalogue import Examples


@dataclass
class Outcome:
    capture: Capture
    findings: list[Finding] = field(default_factory=list)
    note_codes: set[str] = field(default_factory=set)

    @property
    def codes(self) -> set[str]:
        return {f.rule for f in self.findings} | self.note_codes

    def of(self, code: str) -> list[Finding]:
        return [f for f in self.findings if f.rule == code]


def example_options(raw: dict[str, Any], engine: str = "tidb") -> Options:
    """The example's Options; a MySQL rule's examples run with the MySQL target (`engine`)."""
    kwargs = {"target_engine": engine, **raw}
    for key in ("tidb_version", "mysql_version"):
        if key in kwargs:
            kwargs[key] = Version.parse(str(kwargs[key]))
    return Options(**kwargs)


def write_example(examples: Examples, which: str, folder: Path) -> list[Path]:
    """Write the `fires` or `passes` text (and its companions) into `folder`; return the sources.

    A `file` example is read as its folder, the way capture folders and SSDT projects are given,
    so rules about what a folder walk meets are checked too.
    """
    folder.mkdir(parents=True, exist_ok=True)
    text = examples.fires if which == "fires" else examples.passes
    written = []
    if examples.kind == "schema":
        written.append(_write(folder / "schema.sql", text))
    elif examples.kind == "query":
        if examples.schema:
            written.append(_write(folder / "schema.sql", examples.schema))
        written.append(_write(folder / "workload.sql", text))
    elif examples.kind == "file":
        if examples.schema:
            written.append(_write(folder / "schema.sql", examples.schema))
        written.append(_write(folder / (examples.filename or "source.sql"), text, examples.encoding or "utf-8"))
    else:
        raise ValueError(f"examples of kind {examples.kind!r} are not run through the pipeline")
    if examples.workload:
        written.append(_write(folder / "workload.yaml", examples.workload))
    return [folder] if examples.kind == "file" else written


def _write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


def run_pipeline(sources: list[Path], options: Options) -> Outcome:
    capture = api.read(sources)
    translation = api.translate(capture, options)
    plan = api.plan(capture, options)
    outcome = Outcome(capture, findings=[*capture.findings, *translation.findings, *plan.findings])
    outcome.note_codes |= {n.code for q in translation.queries for n in q.notes}
    outcome.findings.extend(api.check(capture, options, plan=plan, translation=translation))
    return outcome


def run_example(examples: Examples, which: str, folder: Path, engine: str = "tidb") -> Outcome:
    return run_pipeline(write_example(examples, which, folder), example_options(examples.options, engine))
