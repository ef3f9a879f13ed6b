"""The library entry points: one function per CLI command, each a composition of stage functions.

`cli.py` only parses arguments and calls these; other programs can import them directly. Stage
modules are imported inside the functions so that `sqlsrv2tidb rules list` does not pay for
sqlglot, matplotlib or a database driver.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .assessment import Parts, build_assessment
from .errors import UsageError
from .model import Capture, Finding
from .model.plan import MigrationPlan
from .model.translation import Translation
from .options import Options
from .outdir import prepare_output, write_json, write_text
from .progress import NullProgress, Progress

if TYPE_CHECKING:
    from .replay.config import ReplayConfig
    from .target import Target


def read(sources: Sequence[Path | str], progress: Progress | None = None) -> Capture:
    """Read SOURCES (scripts, SSDT folders, captures, XE XML, Query Store exports, specs)."""
    from .capture.sources import read_sources

    return read_sources(sources, progress=progress)


def run_schema(sources: Sequence[Path | str], json_file: Path | None = None,
               progress: Progress | None = None) -> Capture:
    """Read SOURCES and, with `json_file`, write the model there; the file's place is checked before reading."""
    if json_file is not None:
        _check_json_file(Path(json_file), sources)
    capture = read(sources, progress)
    if json_file is not None:
        from .model import save_capture

        try:
            save_capture(capture, Path(json_file))
        except OSError as exc:
            raise UsageError(f"--json {json_file}: cannot write ({exc.strerror or exc})") from None
    return capture


def _check_json_file(path: Path, sources: Sequence[Path | str]) -> None:
    if path.is_dir():
        raise UsageError(f"--json {path} is a folder; give a file name, e.g. {path / 'capture.json'}")
    if path.resolve() in {Path(s).resolve() for s in sources}:
        raise UsageError(f"--json {path} would overwrite a source")
    folder = path.parent
    if not folder.is_dir():
        raise UsageError(f"--json {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"--json {path}: folder {folder} is not writable")


def translate(capture: Capture, options: Options, progress: Progress | None = None) -> Translation:
    """Translate every query class of the workload to TiDB, once per fingerprint."""
    from .translate.queries import translate_workload

    return translate_workload(capture, options, progress=progress or NullProgress())


def plan(capture: Capture, options: Options, progress: Progress | None = None) -> MigrationPlan:
    """Decide each table's TiDB design and produce the ordered DDL files."""
    from .plan.migration import build_plan

    return build_plan(capture, options, progress=progress or NullProgress())


def check(
    capture: Capture, options: Options, plan: MigrationPlan | None = None, translation: Translation | None = None
) -> list[Finding]:
    """Run the rules catalogue over the schema, the plan and the translated queries."""
    from .rules.engine import run_rules

    return run_rules(capture, options, plan=plan, translation=translation)


def deployment(capture: Capture, plan: MigrationPlan | None, options: Options) -> dict[str, Any]:
    """Cluster sizing and topology advice from the workload's peak window."""
    from .plan.sizing import advise

    return advise(capture, plan, options)


def _with_rule_settings(findings: list[Finding], options: Options) -> list[Finding]:
    """Apply the override file's `rules:` section (disable, severity) to every stage's findings."""
    from .rules.engine import apply_rule_settings

    return apply_rule_settings(findings, options)


@dataclass
class Outcome:
    """What a command wrote and found; the CLI turns `findings` into the exit code."""

    out: Path | None = None
    files: list[Path] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    assessment: dict[str, Any] | None = None


def _write_ddl(plan_: MigrationPlan, out: Path) -> list[Path]:
    ddl_dir = out / "ddl"
    ddl_dir.mkdir(parents=True, exist_ok=True)
    keep = {f.name for f in plan_.files}
    for stale in ddl_dir.glob("*.sql"):
        if stale.name not in keep:  # files of an earlier run of ours, in a folder only we write
            stale.unlink()
    return [write_text(ddl_dir / f.name, f.content) for f in plan_.files]


def run_ddl(sources: Sequence[Path | str], out: Path, options: Options, progress: Progress | None = None) -> Outcome:
    out = prepare_output(out, sources)
    capture = read(sources, progress)
    plan_ = plan(capture, options, progress)
    findings = _with_rule_settings([*capture.findings, *plan_.findings, *check(capture, options, plan=plan_)], options)
    files = _write_ddl(plan_, out)
    doc = build_assessment(Parts(capture, options, plan=plan_, findings=tuple(findings)))
    files.append(write_json(out / "assessment.json", doc))
    return Outcome(out, files, findings, doc)


def run_translate(
    sources: Sequence[Path | str], out: Path, options: Options, progress: Progress | None = None
) -> Outcome:
    out = prepare_output(out, sources)
    capture = read(sources, progress)
    translation = translate(capture, options, progress)
    findings = _with_rule_settings([*capture.findings, *translation.findings], options)
    from .translate.queries import render_queries_sql

    files = [write_text(out / "queries.sql", render_queries_sql(translation))]
    doc = build_assessment(Parts(capture, options, translation=translation, findings=tuple(findings)))
    files.append(write_json(out / "assessment.json", doc))
    return Outcome(out, files, findings, doc)


def run_assess(
    sources: Sequence[Path | str],
    out: Path,
    options: Options,
    *,
    replay_target: Any = None,
    replay_config: Any = None,
    anonymize: bool = False,
    progress: Progress | None = None,
) -> Outcome:
    """Every stage: read, translate, plan, check, (replay,) and write the report."""
    progress = progress or NullProgress()
    out = prepare_output(out, sources)
    capture = read(sources, progress)
    translation = translate(capture, options, progress)
    plan_ = plan(capture, options, progress)
    with progress.task("Checking rules"):
        rule_findings = check(capture, options, plan=plan_, translation=translation)
    findings = _with_rule_settings(
        [*capture.findings, *translation.findings, *plan_.findings, *rule_findings], options
    )
    advice = deployment(capture, plan_, options)
    files = _write_ddl(plan_, out)
    doc = build_assessment(
        Parts(capture, options, plan=plan_, translation=translation, findings=tuple(findings), deployment=advice)
    )
    files.append(write_json(out / "assessment.json", doc))
    if replay_target is not None:
        from .replay import runner

        result = runner.run_replay(capture, translation, replay_target, replay_config, out=out, progress=progress)
        findings.extend(_with_rule_settings(result.findings, options))
        files.append(out / "replay.json")
    # Anonymized, every file written above is rewritten in place with the page's pseudonyms.
    report = render_report(out, anonymize=anonymize, into=out if anonymize else None, progress=progress,
                           templates=options.templates_dir, rules=options.rules_dir)
    files.append(report)
    return Outcome(out, files, findings, doc)


def run_replay(
    sources: Sequence[Path | str], out: Path, options: Options, *, target: Target, config: ReplayConfig,
    progress: Progress | None = None,
) -> Outcome:
    """Read and translate SOURCES, replay them against TARGET, write OUT/replay.json.

    Unconfirmed writes are refused before anything is read.
    """
    from .replay import runner
    from .replay.safety import check_writes_confirmed

    progress = progress or NullProgress()
    check_writes_confirmed(target, config)
    out = prepare_output(out, sources)
    capture = read(sources, progress)
    translation = translate(capture, options, progress)
    outcome = runner.run_replay(capture, translation, target, config, out=out, progress=progress)
    return Outcome(out, [outcome.path] if outcome.path else [], outcome.findings)


def run_experiment(
    sources: Sequence[Path | str], out: Path, options: Options, *, target: Target, table: str, config: ReplayConfig,
    progress: Progress | None = None,
) -> Outcome:
    """Read and translate SOURCES, build each design of TABLE on TARGET, replay its inserts on each.

    Writes OUT/experiment.json; without --confirm-database nothing is read or created.
    """
    from .replay.experiment import check_confirmed
    from .replay.experiment import run_experiment as experiment

    progress = progress or NullProgress()
    check_confirmed(target, config)
    out = prepare_output(out, sources)
    capture = read(sources, progress)
    translation = translate(capture, options, progress)
    outcome = experiment(capture, translation, target, table, config, options, out=out, progress=progress)
    return Outcome(out, [outcome.path] if outcome.path else [], outcome.findings)


def render_report(
    out: Path, *, anonymize: bool = False, into: Path | None = None, progress: Progress | None = None,
    templates: Path | None = None, rules: Path | None = None,
) -> Path:
    """(Re-)render `report.html` from the files in OUT; `templates`/`rules` folders override single files.

    With `anonymize`, a pseudonymised copy of every file goes into `into` (default `OUT/anonymized`) with its page.
    """
    from .report.render import render_report as _render

    return _render(Path(out), anonymize=anonymize, into=into, progress=progress or NullProgress(), templates=templates,
                   rules=rules)
