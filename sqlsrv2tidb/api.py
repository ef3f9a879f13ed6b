"""The library entry points: one function per CLI command, each a composition of stage functions.

`cli.py` only parses arguments and calls these; other programs can import them directly. Stage
modules are imported inside the functions so that `sqlsrv2tidb rules list` does not pay for
sqlglot, matplotlib or a database driver.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .assessment import Parts, build_assessment
from .errors import ConnectionFailed, UsageError
from .model import Capture, Finding
from .model.plan import MigrationPlan
from .model.translation import Translation
from .options import Options
from .outdir import WrittenDocument, prepare_output, write_json, write_text
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
    capture: Capture, options: Options, plan: MigrationPlan | None = None, translation: Translation | None = None,
    only: Sequence[str] | None = None,
) -> list[Finding]:
    """Run the rules catalogue (or the rules in `only`) over the schema, the plan and the translated queries."""
    from .rules.engine import run_rules

    return run_rules(capture, options, plan=plan, translation=translation, only=only)


def deployment(capture: Capture, plan: MigrationPlan | None, options: Options) -> dict[str, Any]:
    """Cluster sizing and topology advice from the workload's peak window."""
    from .plan.sizing import advise

    return advise(capture, plan, options)


def for_target(target: Target, options: Options, *, engine: bool = True) -> Options:
    """`options` for the server `target` names: MySQL's for a MySQL, else TiDB's (unless `engine` is False: the
    user named the engine), and the version the server reports unless the user named one."""
    from .replay.target_engine import options_for_target

    return options_for_target(target, options, engine=engine)


def session_target(target: Target, options: Options, capture: Capture) -> Target:
    """A MySQL target's connections set the collation of its tables' text (replay/target_engine.py)."""
    from .replay.target_engine import session_target as _session

    return _session(target, options, capture.database)


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
    assessment: Mapping[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    """Lines for the user at the end (assess --connection: what became of each stage)."""


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
    live: LiveSource | None = None,
    engine_from_target: bool = False,
) -> Outcome:
    """Every stage: read, translate, plan, check, (replay,) and write the report.

    With `live`, from a live SQL Server: capture, plan, tables and rows in the target, compare, replay and the
    report, each as far as the inputs allow (`_assess_live`). `engine_from_target`: write for the engine of the
    `replay_target` server (no --target-engine given)."""
    if replay_target is not None:
        options = for_target(replay_target, options, engine=engine_from_target)
    if live is not None:
        return _assess_live(sources, out, options, live, replay_target, replay_config, anonymize,
                            progress or NullProgress())
    progress = progress or NullProgress()
    out = prepare_output(out, sources)
    capture = read(sources, progress)
    if replay_target is not None:
        replay_target = session_target(replay_target, options, capture)
    assessed = _assessed(capture, out, options, progress)
    translation, findings, files, doc = assessed.translation, assessed.findings, assessed.files, assessed.doc
    if replay_target is not None:
        from .replay import runner

        result = runner.run_replay(capture, translation, replay_target, replay_config, out=out, progress=progress,
                                   options=options)
        findings.extend(_with_rule_settings(result.findings, options))
        files.append(out / "replay.json")
    # The page is made from OUT's files alone: the capture, its translation and the document (most of the memory a
    # workload of 100,000 classes takes) are let go before it reads them back. Anonymized, every file written above
    # is rewritten in place with the page's pseudonyms, so the caller keeps the document as assessed.
    kept: Mapping[str, Any] = doc if anonymize else WrittenDocument(out / "assessment.json")
    del capture, assessed, translation, doc
    _give_back_memory()
    report = render_report(out, anonymize=anonymize, into=out if anonymize else None, progress=progress,
                           templates=options.templates_dir, rules=options.rules_dir)
    files.append(report)
    return Outcome(out, files, findings, kept)


def _give_back_memory() -> None:
    """Return the memory of objects just let go to the system before a stage that needs as much again.

    Python keeps freed memory for its next objects, and the C library keeps the pages of its heap: after a
    workload's capture and translation are let go, the process still holds most of what they took while the
    page reads assessment.json back (100,000 classes: some 400 MB held beside the 600 MB the document takes).
    The collector frees what cycles held, and glibc's malloc_trim gives the free pages back; a C library
    without it (musl, macOS) skips the second step."""
    import ctypes
    import gc

    gc.collect()
    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)  # the C library this process already runs on
    if trim is not None:
        trim(0)


@dataclass
class _Assessed:
    """What assess makes of a capture before anything runs on a server: translation, plan, findings, ddl/, assessment.json."""

    translation: Translation
    plan: MigrationPlan
    findings: list[Finding]
    parts: Parts
    doc: dict[str, Any]
    files: list[Path]


def _assessed(capture: Capture, out: Path, options: Options, progress: Progress) -> _Assessed:
    translation = translate(capture, options, progress)
    plan_ = plan(capture, options, progress)
    with progress.task("Checking rules"):
        rule_findings = check(capture, options, plan=plan_, translation=translation)
    findings = _with_rule_settings(
        [*capture.findings, *translation.findings, *plan_.findings, *rule_findings], options
    )
    advice = None if options.mysql else deployment(capture, plan_, options)  # MySQL: InnoDB's advice is findings
    files = _write_ddl(plan_, out)
    parts = Parts(capture, options, plan=plan_, translation=translation, findings=tuple(findings), deployment=advice)
    doc = build_assessment(parts)
    files.append(write_json(out / "assessment.json", doc))
    return _Assessed(translation, plan_, findings, parts, doc, files)


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
    options = for_target(target, options)
    capture = read(sources, progress)
    target = session_target(target, options, capture)
    translation = translate(capture, options, progress)
    outcome = runner.run_replay(capture, translation, target, config, out=out, progress=progress, options=options)
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
    options = for_target(target, options)
    capture = read(sources, progress)
    target = session_target(target, options, capture)
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


# Data: copy, synthesize and verify rows in the target --------------------------------------------

@dataclass(frozen=True)
class SourceLogin:
    """How to reach the SQL Server rows come from: the capture's connection string and password options."""

    connection: str
    password_env: str = "SQLSRV2TIDB_MSSQL_PASSWORD"
    prompt: bool = False
    timeout: int = 15


def _open_source(login: SourceLogin):
    from .capture.live import open_session, parse_connection, resolve_password

    conn = resolve_password(parse_connection(login.connection), password_env=login.password_env, prompt=login.prompt)
    return open_session(conn, timeout=login.timeout)


def _source_capture(sources: Sequence[Path | str], session, progress: Progress) -> Capture:
    """The schema: from SOURCES when given, else read live over the data connection."""
    if sources:
        return read(sources, progress)
    from .capture.catalog import read_catalog
    from .capture.live import collect

    doc = collect(session.fetch, session.conn.host, query_store=False, days=1, progress=progress)
    return read_catalog(doc, Path(f"{session.conn.host} (live catalog)"))


def _data_target(target: Target, settings: Any, capture: Capture, options: Options, plan_: MigrationPlan | None = None):
    """The target connection and the plan (the TiDB names of the tables): `plan_`, or made here for the target's
    engine; a MySQL target's connection in its tables' collation."""
    from .data.targetdb import TargetDb
    from .replay.drivers import resolve
    from .replay.safety import check_not_source

    check_not_source(target, capture.server)
    driver = resolve(settings.driver).name
    if plan_ is None:
        options = for_target(target, options)
    db = TargetDb(session_target(target, options, capture), "pymysql" if driver == "asyncmy" else driver)
    return db, plan_ or plan(capture, options)


def _specs(db, capture: Capture, plan_: MigrationPlan, settings: Any, refused: dict[str, str] | None = None):
    """The tables to load; those whose CREATE the target refused (`refused`, by folded name) are not among them."""
    from .data.tables import build_specs

    present = db.tables()
    specs, missing = build_specs(capture.database, plan_, lambda n: db.columns(n) if n.casefold() in present else [],
                                 settings.wants)
    missing = [name for name in missing if name.casefold() not in (refused or {})]
    if refused and not specs:
        first = next(iter(refused.values()))
        raise ConnectionFailed(f"the target refused the CREATE TABLE of every table ({len(refused)}), the first: {first}")
    if missing:
        shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
        raise UsageError(f"the target {db.target.display} has no table {shown}; apply ddl/ first "
                         "(sqlsrv2tidb ddl SOURCES -o OUT) or pass --create-tables")
    if not specs:
        raise UsageError("no table to move: the source has none, or --table matched none")
    return specs


@contextmanager
def _from_sql_server(login: SourceLogin, sources: Sequence[Path | str], target: Target, settings: Any,
                     options: Options, progress: Progress, read_already: tuple[Capture, MigrationPlan] | None = None):
    """The source's capture, a pool of its sessions, the target connection and plan, and `host/database`
    (the capture and plan `read_already` has, else read from SOURCES or the live catalog, and planned)."""
    from .data.source import Source, SourcePool

    session = _open_source(login)
    pool = SourcePool(lambda: _open_source(login))
    db = None
    try:
        capture = read_already[0] if read_already else _source_capture(sources, session, progress)
        pool.put(Source(session, pool))
        db, plan_ = _data_target(target, settings, capture, options, read_already[1] if read_already else None)
        yield capture, pool, db, plan_, f"{session.conn.host}/{capture.database.name or ''}"
    finally:
        pool.close()
        session.close()
        if db is not None:
            db.close()


def run_data_copy(sources: Sequence[Path | str], out: Path, options: Options, *, login: SourceLogin, target: Target,
                  settings: Any, progress: Progress | None = None) -> Outcome:
    """Copy (or sample) SQL Server's rows into TARGET, verify them, write OUT/data.json."""
    from .data.settings import check_confirmed

    progress = progress or NullProgress()
    check_confirmed(target, settings)
    out = prepare_output(out, sources)
    return _copy(sources, out, options, login=login, target=target, settings=settings, progress=progress)


def _copy(sources: Sequence[Path | str], out: Path, options: Options, *, login: SourceLogin, target: Target,
          settings: Any, progress: Progress, read_already: tuple[Capture, MigrationPlan] | None = None) -> Outcome:
    """data copy's work once OUT is ready and the writes confirmed (`_from_sql_server` for `read_already`)."""
    from .data import result

    with _from_sql_server(login, sources, target, settings, options, progress, read_already) as (
            capture, pool, db, plan_, where):
        run = {"mode": "copy", "source": where, "target": target.display, "sample": str(settings.sample or ""),
               "seed": settings.seed}
        checkpoint, notes, refused = _tables_ready(out, db, plan_, capture, settings, run, progress)
        specs = _specs(db, capture, plan_, settings, refused)
        started = result.now()
        keep = _sample(specs, pool, settings, progress) if settings.sample else None
        outcome = _load(specs, out, db, target, checkpoint, settings, progress, reader=pool.get, keep=keep,
                        workers=None if keep is not None else _range_workers(pool, login, target, db.driver, settings))
        _after_load(db, plan_, capture, specs, checkpoint, outcome, settings, progress, notes, refused)
        return _finish_data(out, "copy", where, target, db.kind, settings, outcome, started)


def _range_workers(pool, login: SourceLogin, target: Target, driver: str, settings: Any):
    """What the processes copying key ranges of a large table need: the logins as already resolved (a
    prompted password is not asked again). Given even where this run splits nothing (--jobs 1,
    --split-rows 0): the ranges of an earlier, interrupted run are continued by workers all the same."""
    from .data.worker import RangeWorkers

    source = pool.get()
    try:
        return RangeWorkers(source.session.conn, login.timeout, target, driver, settings.split_rows)
    finally:
        source.close()


def _sample(specs, pool, settings: Any, progress: Progress) -> dict[str, Any]:
    """--sample: which rows of each table to copy, parents of sampled rows included."""
    from .data.sample import choose

    source = pool.get()
    try:
        with progress.task(f"Choosing a sample of {settings.sample} over {len(specs)} table(s)"):
            return choose(specs, lambda spec, columns: source.rows(spec, columns=columns), settings.sample, settings.seed)
    finally:
        source.close()


def _tables_ready(out: Path, db, plan_: MigrationPlan, capture: Capture, settings: Any, run: dict[str, Any],
                  progress: Progress):
    """The checkpoint of this load, and with --create-tables the tables the target does not have yet: the notes
    and, by folded target name, the tables whose CREATE the target refused (they are not loaded). What became of
    their CHECK constraints (a server setting turned on, constraints not enforced) is said at once and kept in the
    checkpoint for data.json."""
    from .data import ddl
    from .data.checkpoint import Checkpoint
    from .data.tables import target_name

    chosen = [t for t in capture.database.tables if settings.wants(t.schema, t.name)]
    checkpoint = Checkpoint.open(out, {**run, "tables": sorted(t.qualified_name for t in chosen)}, restart=settings.restart)
    notes: list[str] = []
    refused: dict[str, str] = {}
    if settings.create_tables:
        present = db.tables()
        new = {t.qualified_name: target_name(plan_, t).casefold() for t in chosen
               if target_name(plan_, t).casefold() not in present}
        made, refused, checks = ddl.before(db, plan_, set(new.values()))
        notes += made
        for label, name in new.items():
            if name not in refused:
                checkpoint.update(label, extra={**checkpoint.state(label).extra, "created": True})
        if checks.planned:
            for line in checks.notes():
                progress.note(line)
            checkpoint.checks_created(checks.to_json())
    if checkpoint.check_constraints:  # this load's, or the one it resumes (which created the tables)
        notes += [str(n) for n in checkpoint.check_constraints.get("notes") or ()]
    return checkpoint, notes, refused


def _after_load(db, plan_: MigrationPlan, capture: Capture, specs, checkpoint, outcome: dict[str, Any], settings: Any,
                progress: Progress, notes: list[str], refused: dict[str, str]) -> None:
    """What --create-tables does once the rows are in (indexes and foreign keys, then views), and the tables whose
    CREATE the target refused as failed tables of the outcome: its notes, views and results are filled in."""
    from .data.copy import TableResult
    from .data.tables import TableSpec, target_name

    notes += _indexes_after(db, plan_, specs, checkpoint, outcome)
    for res in outcome["results"]:  # the indexes and keys the target refused, by this run or the one it resumed
        res.extra["refused"] = checkpoint.state(res.spec.label).extra.get("refused", [])
    outcome["views"], more = _views_after(db, plan_, checkpoint, outcome, settings, progress)
    outcome["notes"] = notes + more
    outcome["check_constraints"] = checkpoint.check_constraints
    for table in capture.database.tables:
        name = target_name(plan_, table)
        if settings.wants(table.schema, table.name) and name.casefold() in refused:
            outcome["results"].append(TableResult(TableSpec(table, name, ()), status="failed",
                                                  message=refused[name.casefold()]))
            outcome["verifies"].append(None)


def _indexes_after(db, plan_: MigrationPlan, specs, checkpoint, outcome: dict[str, Any]) -> list[str]:
    """With --create-tables, once every table is in: the indexes and foreign keys of the tables this load created,
    each table marked in the checkpoint as its own are done (with what the target refused of them)."""
    from .data import ddl

    if outcome["interrupted"] or any(r.status == "failed" for r in outcome["results"]):
        return []
    pending = {s.target_name.casefold(): s.label for s in specs if checkpoint.state(s.label).extra.get("created")
               and not checkpoint.state(s.label).extra.get("indexed")}

    def finished(name: str, refusals: list[str]) -> None:
        label = pending[name]
        checkpoint.update(label, extra={**checkpoint.state(label).extra, "indexed": True, "refused": refusals})

    return ddl.after(db, plan_, set(pending), {s.target_name.casefold() for s in specs}, finished)


def _views_after(db, plan_: MigrationPlan, checkpoint, outcome: dict[str, Any], settings: Any, progress: Progress):
    """With --create-tables, after the indexes and foreign keys: the plan's views the target does not have yet
    (and the notes on those it refused); none while a table is missing its rows."""
    from .data import ddl, result

    if not settings.create_tables or outcome["interrupted"]:
        return None, []
    failed = sum(1 for r in outcome["results"] if r.status == "failed")
    if failed:
        return None, [f"--create-tables: indexes, foreign keys and views wait until every table is loaded; {failed} "
                      "table(s) failed, run the same command again once they load"]
    views: list[Any] = []
    if not plan_.views:
        return views, []
    with progress.task(f"Creating {len(plan_.views)} view(s)", total=len(plan_.views)) as task:
        for view in ddl.views(db, plan_, checkpoint.views, checkpoint.view_created):
            views.append(view)
            task.advance()
    return views, result.view_notes(views)


def _load(specs, out: Path, db, target: Target, checkpoint, settings: Any, progress: Progress, *, reader,
          keep=None, expected=None, synthesized: bool = False, workers=None) -> dict[str, Any]:
    """Load SPECS with the copier, then verify each table; returns what data.json needs."""
    import threading

    from .data.copy import Copier, CopySettings, Rejects
    from .data.load import local_infile_works
    from .data.meter import Meter
    from .data.order import load_order
    from .data.targetdb import TargetDb

    order = load_order([s.target_name for s in specs], [(f.table, f.referenced) for f in db.foreign_keys()])
    _refuse_non_empty(db, specs, checkpoint, settings.truncate, settings.restart)
    if not checkpoint.resumed:
        (out / "data-rejects.jsonl").unlink(missing_ok=True)  # the rejects of an earlier load of ours
    method = "load data" if local_infile_works(db, specs[0]) else "insert"
    stop = threading.Event()
    total = sum(s.table.row_count or 0 for s in specs) or None
    with progress.task(f"Loading {len(specs)} table(s) into {target.display}", total=total) as task:
        copier = Copier(open_target=lambda checks: TargetDb(db.target, db.driver, fk_checks=checks), reader=reader,
                        checkpoint=checkpoint, settings=CopySettings(jobs=settings.jobs, chunk_rows=settings.chunk_rows,
                                                                     retries=settings.retries, truncate=settings.truncate),
                        rejects=Rejects(out / "data-rejects.jsonl"), meter=Meter(task, "Loading"), stop=stop,
                        method=method, keep=keep, expected=expected or (lambda r, s: s.table.row_count),
                        resume_by_key=not synthesized, workers=workers)
        results = copier.run(specs, order)
    verifies: list[Any] = [None] * len(results)
    if settings.verify and not copier.interrupted:
        verifies = _verify(results, target, db.driver, settings, progress, reader, stop, subset=keep is not None,
                           ordered=not synthesized)
    return {"results": results, "verifies": verifies, "interrupted": copier.interrupted or stop.is_set(),
            "method": copier.method}


def _refuse_non_empty(db, specs, checkpoint, truncate: bool, restart: bool = False) -> None:
    """Nothing the user loaded is written over: a table this load has not started must be empty."""
    if truncate:
        return
    full = [s.target_name for s in specs if checkpoint.state(s.label).status == "new" and not db.is_empty(s.target_name)]
    if full:
        shown = ", ".join(full[:8]) + (f" and {len(full) - 8} more" if len(full) > 8 else "")
        raise UsageError(f"the target already holds rows in {shown}; empty them, or pass --truncate to have them "
                         "emptied" + (" (--restart loads every table again from its start)" if restart else
                                      ", or give the -o folder of the load that wrote them to continue it"))


def _verify(results, target: Target, driver: str, settings: Any, progress: Progress, reader, stop, *,
            subset: bool = False, ordered: bool = True) -> list[Any]:
    from .data import parallel
    from .data.source import SourceLost
    from .data.tables import target_order, target_select
    from .data.targetdb import TargetDb, TargetLost
    from .data.verify import verify_table

    todo = [r for r in results if r.status in ("done", "already done")]

    def attempt(res):
        spec = res.spec
        source = reader()
        db = TargetDb(target, driver)
        try:
            columns = ", ".join(target_select(c) for c in spec.columns)
            order = f" ORDER BY {', '.join(target_order(spec))}" if spec.key and ordered else ""
            sql = f"SELECT {columns} FROM `{spec.target_name.replace('`', '``')}`{order}"
            return verify_table(spec, lambda: source.rows(spec), lambda: db.stream(sql), chunk_rows=settings.chunk_rows,
                                subset=subset, ordered=ordered)
        finally:
            if hasattr(source, "close"):
                source.close()
            db.close()

    def one(res):
        for tries in range(settings.retries + 1):
            try:
                return attempt(res)
            except (SourceLost, TargetLost):  # a lost connection: the table is compared again from its start
                if tries == settings.retries:
                    raise

    with progress.task(f"Verifying {len(todo)} table(s)", total=len(todo)) as task:
        def counted(res):
            outcome = one(res)
            task.advance()
            return outcome
        found = dict(zip([id(r) for r in todo], parallel.each(todo, counted, settings.jobs, stop), strict=True))
    return [found.get(id(r)) for r in results]


def _finish_data(out: Path, mode: str, source: str, target: Target, server: str, settings: Any,
                 outcome: dict[str, Any], started: float) -> Outcome:
    from .data import result
    from .errors import Interrupted

    pairs = list(zip(outcome["results"], outcome["verifies"], strict=True))
    findings = (result.findings(pairs) + result.view_findings(outcome.get("views"))
                + result.check_findings(outcome.get("check_constraints")))
    rejects = out / "data-rejects.jsonl"
    doc = result.document(
        mode=mode, source=source, target=target.display, server=server,
        settings={"jobs": settings.jobs, "chunk_rows": settings.chunk_rows,
                  "split_rows": settings.split_rows if mode == "copy" else None, "sample": str(settings.sample or "") or None,
                  "scale": settings.scale if mode == "synthesize" else None, "seed": settings.seed,
                  "method": outcome.get("method")},
        tables=[result.table_entry(r, v) for r, v in pairs], findings=findings, started=started,
        seconds=result.now() - started, interrupted=outcome["interrupted"], notes=outcome.get("notes"),
        views=outcome.get("views"), check_constraints=outcome.get("check_constraints"),
        rejects_file=rejects.name if rejects.exists() and rejects.stat().st_size else None)
    path = write_json(out / result.FILE, doc)
    if outcome["interrupted"]:
        raise Interrupted(f"interrupted: what was loaded is in the checkpoint and {path}; "
                          "run the same command again to continue")
    return Outcome(out, [path], findings, doc)


def run_data_synthesize(sources: Sequence[Path | str], out: Path, options: Options, *, target: Target, settings: Any,
                        progress: Progress | None = None) -> Outcome:
    """Generate rows shaped by the capture's statistics into TARGET (no SQL Server needed), verify, write data.json."""
    from .data import result
    from .data.settings import check_confirmed
    from .data.synth import Synthesizer

    progress = progress or NullProgress()
    check_confirmed(target, settings)
    if not sources:
        raise UsageError("synthesize needs SOURCES: a capture (with statistics, from `capture` or the capture-script)")
    out = prepare_output(out, sources)
    capture = read(sources, progress)
    db, plan_ = _data_target(target, settings, capture, options)
    try:
        where = ", ".join(capture.sources)
        run = {"mode": "synthesize", "source": where, "target": target.display, "seed": settings.seed,
               "scale": settings.scale}
        checkpoint, notes, refused = _tables_ready(out, db, plan_, capture, settings, run, progress)
        specs = _specs(db, capture, plan_, settings, refused)
        synth = Synthesizer(specs, seed=settings.seed, scale=settings.scale)
        started = result.now()
        outcome = _load(specs, out, db, target, checkpoint, settings, progress, reader=lambda: synth,
                        expected=lambda reader, spec: synth.plan(spec).rows, synthesized=True)
        for res in outcome["results"]:
            columns, table_notes = synth.describe(res.spec)
            res.extra["columns"], res.extra["notes"] = columns, table_notes
        _after_load(db, plan_, capture, specs, checkpoint, outcome, settings, progress, notes, refused)
        return _finish_data(out, "synthesize", where, target, db.kind, settings, outcome, started)
    finally:
        db.close()


def run_data_verify(sources: Sequence[Path | str], out: Path, options: Options, *, login: SourceLogin, target: Target,
                    settings: Any, progress: Progress | None = None) -> Outcome:
    """Compare every table of TARGET with SQL Server's, chunk by chunk; write OUT/data.json. Reads only."""
    import threading

    from .data import result
    from .data.copy import TableResult

    progress = progress or NullProgress()
    out = prepare_output(out, sources)
    with _from_sql_server(login, sources, target, settings, options, progress) as (capture, pool, db, plan_, where):
        specs = _specs(db, capture, plan_, settings)
        started = result.now()
        results = [TableResult(s, status="done", rows=0) for s in specs]
        stop = threading.Event()
        try:
            verifies = _verify(results, target, db.driver, settings, progress, pool.get, stop,
                               subset=settings.sample is not None)
        except KeyboardInterrupt:
            from .errors import Interrupted

            raise Interrupted("interrupted: nothing was written") from None
        for res, ver in zip(results, verifies, strict=True):
            res.status, res.rows = "verified", ver.target_rows if ver else 0
        return _finish_data(out, "verify", where, target, db.kind, settings,
                            {"results": results, "verifies": verifies, "interrupted": False, "method": None}, started)


# Compare: the same read queries on SQL Server and on the target ----------------------------------

@dataclass(frozen=True)
class CompareSettings:
    """How `compare` runs: parameter sets per class, each side's statement timeout, the seed, chosen classes."""

    parameter_sets: int = 3
    timeout: float = 30.0
    seed: int = 1
    queries: tuple[str, ...] = ()
    reconnect_within: float = 120.0
    """Seconds of waiting, in all, for a side whose session was lost before a class is an error (compare.reopen)."""
    resume: bool = False
    """Keep the classes OUT's compare.json already judged (compare.judged) and judge only the others."""
    allow_writes: bool = False
    """Run the write classes too, each in a transaction rolled back on both sides (compare.writes)."""
    confirm_database: str | None = None
    """The target's database, named by the user: writes are sent only when it matches (replay.safety)."""


def run_compare(sources: Sequence[Path | str], out: Path, options: Options, *, login: SourceLogin, target: Target,
                settings: CompareSettings | None = None, progress: Progress | None = None) -> Outcome:
    """Run each read class's T-SQL on SQL Server and its translation on TARGET; write OUT/compare.json.

    Only reads are sent, to either server (compare.classes); nothing is written anywhere but OUT.
    """
    settings = settings or CompareSettings()
    progress = progress or NullProgress()
    if not sources:
        raise UsageError("compare needs SOURCES: the capture whose query classes are compared")
    if settings.parameter_sets < 1 or settings.timeout <= 0 or settings.reconnect_within < 0:
        raise UsageError("--parameter-sets must be 1 or more, --statement-timeout more than 0 and --reconnect-within "
                         "0 or more")
    out = prepare_output(out, sources)
    options = for_target(target, options)
    capture = read(sources, progress)
    target = session_target(target, options, capture)
    translation = translate(capture, options, progress)
    return _compare(capture, translation, out, options, login=login, target=target, settings=settings,
                    progress=progress)


def _compare(capture: Capture, translation: Translation, out: Path, options: Options, *, login: SourceLogin,
             target: Target, settings: CompareSettings, progress: Progress) -> Outcome:
    """compare's work once the capture is read and translated: choose, (keep what OUT judged,) run, write."""
    import time

    from .capture.live import parse_connection
    from .compare import document as compare_doc
    from .compare.calls import choose_calls
    from .compare.classes import Left, choose
    from .compare.judged import Judged, earlier
    from .compare.runner import Run
    from .errors import Interrupted
    from .replay.procedure_calls import calls_of
    from .replay.safety import check_not_source

    check_not_source(target, capture.server)
    if settings.allow_writes:
        from .replay.config import ReplayConfig
        from .replay.safety import check_writes_confirmed

        check_writes_confirmed(target, ReplayConfig(allow_writes=True, confirm_database=settings.confirm_database))
    chosen, left = choose(capture, translation, settings.queries, options)
    captured = calls_of(capture, options)
    calls, left = choose_calls(capture, translation, captured, left, writes=settings.allow_writes)
    writes: list[Any] = []
    if settings.allow_writes:
        from .compare.writes import choose_writes
        from .procedures.catalog import Procedures

        writes, left = choose_writes(capture, translation, left, Procedures(capture.database, options), captured)
    if not chosen and not calls and not writes:
        unsent = [item for item in left if "--allow-writes" in item.reason]
        if unsent and not settings.allow_writes:
            raise UsageError(f"nothing to compare: {len(unsent)} of the {len(translation.queries)} query class(es) change "
                             "data, and writes are compared only with --allow-writes --confirm-database NAME (each runs "
                             "in a transaction rolled back on both servers)")
        told = " or a write" if settings.allow_writes else ""
        raise UsageError(f"nothing to compare: none of the {len(translation.queries)} query class(es) is a read{told} "
                         "with a TiDB statement" + (f" ({left[0].id}: {left[0].reason})" if left else ""))
    recorded = {"parameter_sets": settings.parameter_sets, "timeout_s": settings.timeout, "seed": settings.seed,
                "queries": list(settings.queries) or None, "reconnect_within_s": settings.reconnect_within,
                "allow_writes": settings.allow_writes}
    where = f"{parse_connection(login.connection).host}/{capture.database.name or ''}"
    judged = (earlier(out / compare_doc.FILE, source=where, target=target.display, settings=recorded)
              if settings.resume else Judged())
    if judged.not_kept:
        progress.note(judged.not_kept)
    kept = {c.query.id: entry for c in chosen if (entry := judged.kept(c)) is not None}
    todo = [c for c in chosen if c.query.id not in kept]
    if kept:
        progress.note(f"Resuming the comparison: {len(kept)} of {len(chosen)} class(es) kept as "
                      f"{out / compare_doc.FILE} judged them; judging the other {len(todo)}")
    started = time.perf_counter()
    if todo or calls or writes:
        run, kind = _judge(todo, calls, capture, login, target, settings, progress, writes)
    else:  # every class kept: neither server is asked anything
        run, kind = Run([]), judged.server
    results = run.results
    if run.stopped:
        left = [*left, *(Left(c.query.id, f"not run: the run stopped ({run.stopped})") for c in run.not_run)]
    # A differing answer may come from a view the query reads rather than from its own text (QY65).
    compared = {f"query {r.compared.query.id}" for r in results} | {f"query {qid}" for qid in kept}
    through_views = [f for f in check(capture, options, plan=plan(capture, options), translation=translation,
                                      only=("QY65",)) if f.object in compared]
    found = _with_rule_settings(compare_doc.findings(results, list(kept.values())) + through_views, options)
    doc = compare_doc.document(
        source=where, target=target.display, server=kind, settings=recorded, results=results, left=left, found=found,
        seconds=time.perf_counter() - started, reconnects=run.reconnects, stopped=run.stopped,
        kept=list(kept.values()), order=[c.query.id for c in chosen] + [tq.id for tq, _, _ in (*calls, *writes)])
    path = write_json(out / compare_doc.FILE, doc)
    judged_now = len(results) + len(kept)
    if run.interrupted:
        raise Interrupted(f"interrupted: {path} holds the {judged_now} class(es) judged so far; run it again with "
                          f"--resume to judge the other {len(run.not_run)}")
    if run.stopped:
        raise ConnectionFailed(f"compare stopped: {run.stopped}; {path} holds the {judged_now} class(es) judged "
                               f"before, and lists the {len(run.not_run)} not run")
    return Outcome(out, [path], found, doc)


def _judge(todo, calls, capture: Capture, login: SourceLogin, target: Target, settings: CompareSettings,
           progress: Progress, writes=()):
    """Each class of `todo`, each procedure call of `calls` (compare.calls) and each write of `writes`
    (compare.writes), run on both servers and judged (compare.runner); the run and the target's kind."""
    from .compare.calls import prepare_call
    from .compare.classes import prepare
    from .compare.judging import compare_any
    from .compare.reopen import Reconnect
    from .compare.runner import run_classes
    from .compare.sides import SqlServerSide, TargetSide
    from .compare.writes import prepare_write
    from .replay.params import MarkerColumn
    from .replay.statements import target_values

    session = _open_source(login)
    sql_server = SqlServerSide(session, settings.timeout)
    try:
        target_side = TargetSide(target, settings.timeout)
    except BaseException:
        sql_server.close()
        raise
    try:
        def pools(column: MarkerColumn) -> tuple[Any, ...]:
            return target_values(target_side.conn, column)

        with progress.task(f"Choosing parameter values for {len(todo) + len(calls)} class(es)"):
            classes = [prepare(c.query, c.source, capture, settings.parameter_sets, settings.seed, pools, c.batch)
                       for c in todo]
            classes += [prepare_call(tq, source, capture, call, settings.parameter_sets, settings.seed, pools)
                        for tq, source, call in calls]
            classes += [prepare_write(tq, source, capture, call, settings.parameter_sets, settings.seed, pools)
                        for tq, source, call in writes]
        run = run_classes(classes, capture.database, sql_server, target_side, progress,
                          Reconnect(within=settings.reconnect_within), compare=compare_any)
        return run, target_side.kind
    finally:
        sql_server.close()
        target_side.close()


# Assess from a live server: every stage in one run -----------------------------------------------

CAPTURE_FOLDER = "capture"
"""Where `assess --connection` keeps its capture in OUT (catalog.json, as `capture` writes it)."""
NO_WORKLOAD = ("no workload: neither Query Store nor SOURCES gave a query class; give one as SOURCES beside "
               "--connection (an Extended Events or Query Store export, a workload script or spec)")


@dataclass(frozen=True)
class LiveSource:
    """`assess --connection`: the SQL Server the run captures and copies from, and which stages it runs."""

    login: SourceLogin
    query_store: bool = True
    days: float = 7.0
    data: Any = None
    """The copy's DataSettings (tables created, rows copied or sampled, then verified); None: --no-data."""
    compare: CompareSettings | None = field(default_factory=CompareSettings)
    """None: --no-compare."""
    replay: bool = True
    """False: --no-replay."""
    restart: bool = False
    """Every stage from the start: capture again, the copy's checkpoint and the classes compared ignored."""


def _assess_live(sources: Sequence[Path | str], out: Path, options: Options, live: LiveSource, target: Target | None,
                 replay_config: Any, anonymize: bool, progress: Progress) -> Outcome:
    """capture (catalog and Query Store, with SOURCES beside it), plan, data (tables, rows, verify), compare, replay,
    report: each stage as far as its inputs allow, a failed one a finding (stages.py), a rerun into the same OUT
    continuing what the last one left (the capture, the copy's checkpoint, the classes judged)."""
    from dataclasses import replace

    from .capture.live import capture_to_folder, parse_connection, resolve_password
    from .data.settings import check_confirmed
    from .progress import StageProgress
    from .replay.safety import check_writes_confirmed
    from .stages import LeftOut, Stages, replay_length, said_captured, said_copied, said_judged, said_replayed

    wanted = {"data": live.data is not None, "compare": live.compare is not None, "replay": live.replay}
    stages = Stages(StageProgress(progress, ["capture", "plan", *(n for n, on in wanted.items() if on), "report"]))
    if target is not None and live.data is not None:
        check_confirmed(target, live.data)
    if target is not None and replay_config is not None:
        check_writes_confirmed(target, replay_config)
    conn = resolve_password(parse_connection(live.login.connection), password_env=live.login.password_env,
                            prompt=live.login.prompt)
    login = replace(live.login, connection=conn.odbc(), prompt=False)  # asked once, held in memory only
    out = prepare_output(out, sources)
    folder = out / CAPTURE_FOLDER
    found: list[Finding] = []
    outcome = Outcome(out)

    def capture_stage() -> Capture:
        notes: tuple[str, ...] = ()
        if (folder / "catalog.json").is_file() and not live.restart:
            stages.resumed("capture", f"the capture in {folder} is kept; --restart captures again")
        else:
            notes = capture_to_folder(login.connection, folder, password_env="", prompt=False,
                                      query_store=live.query_store, days=live.days, timeout=login.timeout,
                                      progress=stages.display).notes
        captured = read([folder, *sources], stages.display)
        for note in notes:  # what the server could not give; a workload SOURCES gave beside it is no loss
            if not (note.startswith("No workload captured") and captured.workload.queries):
                stages.display.note(note)
        return captured

    where = f"{conn.host}/{conn.get('database', 'initial catalog') or ''}"
    capture = stages.run("capture", capture_stage, said=said_captured, fatal=not sources,
                         counts=f"the catalog{' and Query Store' if live.query_store else ''} of {where}")
    if capture is None:  # the capture failed: the SOURCES beside it are what there is
        capture = read(sources, stages.display)
    if target is not None:
        from .replay.safety import check_not_source

        check_not_source(target, capture.server)
        target = session_target(target, options, capture)
    assessed = stages.run("plan", lambda: _assessed(capture, out, options, stages.display), fatal=True,
                          counts=f"{len(capture.database.tables)} table(s), {len(capture.workload.queries)} query "
                                 "class(es)",
                          said=lambda a: f"{len(a.plan.tables)} table(s) planned, {len(a.translation.queries)} query "
                                         f"class(es) translated, {len(a.findings)} finding(s)")
    assert assessed is not None  # fatal: a plan that fails stops the run
    found += assessed.findings
    outcome.files += assessed.files
    for name, on in wanted.items():
        if on and target is None:
            stages.left_out(name, "no --target to run it against")
    if target is not None and live.data is not None:
        settings = replace(live.data, create_tables=True, restart=live.restart)
        rows = sum(t.row_count or 0 for t in capture.database.tables if settings.wants(t.schema, t.name))

        def data_stage() -> Outcome:
            from .data.checkpoint import FILE

            if (out / FILE).is_file() and not live.restart:
                stages.resumed("data", f"the copy goes on from its checkpoint, {out / FILE}")
            return _copy([], out, options, login=login, target=target, settings=settings, progress=stages.display,
                         read_already=(capture, assessed.plan))

        copied = stages.run(
            "data", data_stage, needs=["capture"], said=lambda o: said_copied(o.assessment or {}),
            counts=f"{len(capture.database.tables)} table(s), {rows:,} row(s)"
                   + (f" (a sample of {settings.sample})" if settings.sample else "") + f" into {target.display}")
        found += copied.findings if copied else []
    if target is not None and live.compare is not None:
        settings_ = replace(live.compare, resume=not live.restart)

        def compare_stage() -> Outcome:
            if live.data is not None and live.data.sample:
                raise LeftOut(f"the target holds a sample ({live.data.sample}) of the rows SQL Server answers from, "
                              "so their answers differ by construction; run without --sample to compare them")
            if not capture.workload.queries:
                raise LeftOut(NO_WORKLOAD)
            try:
                return _compare(capture, assessed.translation, out, options, login=login, target=target,
                                settings=settings_, progress=stages.display)
            except UsageError as exc:  # nothing to compare: the stage is left out, saying why
                raise LeftOut(str(exc).removeprefix("nothing to compare: ")) from None

        compared = stages.run("compare", compare_stage, needs=["capture", "data"],
                              said=lambda o: said_judged(o.assessment or {}),
                              counts=f"the {'reads and writes' if settings_.allow_writes else 'reads'} among "
                                     f"{len(assessed.translation.queries)} query class(es)")
        found += compared.findings if compared else []
    if target is not None and live.replay:
        from .replay.config import ReplayConfig

        config = replay_config or ReplayConfig()

        def replay_stage() -> Any:
            from .errors import Refused
            from .replay import runner
            from .replay.selection import select

            if not capture.workload.queries:
                raise LeftOut(NO_WORKLOAD)
            try:
                select(capture, assessed.translation, config)
            except (UsageError, Refused) as exc:
                raise LeftOut(str(exc)) from None
            # Replay draws its own live line (rates, errors) unless the run is quiet; it has no tasks to mark.
            return runner.run_replay(capture, assessed.translation, target, config, out=out, progress=progress)

        replayed = stages.run("replay", replay_stage, needs=["plan"], expected=replay_length(config),
                              said=lambda o: said_replayed(o.result or {}),
                              counts=f"{len(assessed.translation.queries)} query class(es) against {target.display}")
        found += _with_rule_settings(replayed.findings, options) if replayed else []
    failed = _with_rule_settings(stages.findings(), options)
    found += failed
    doc = build_assessment(replace(assessed.parts, findings=(*assessed.parts.findings, *failed)))
    doc["run"] = stages.to_json()
    write_json(out / "assessment.json", doc)

    def report_stage() -> Path:
        page = render_report(out, progress=stages.display, templates=options.templates_dir, rules=options.rules_dir)
        if anonymize:  # a copy to share, beside OUT's own files (which a rerun continues from)
            render_report(out, anonymize=True, progress=stages.display, templates=options.templates_dir,
                          rules=options.rules_dir)
        return page

    report = stages.run("report", report_stage, fatal=True, said=lambda p: str(p))
    assert report is not None
    outcome.files.append(report)
    outcome.findings, outcome.assessment, outcome.notes = found, doc, stages.lines()
    return outcome
