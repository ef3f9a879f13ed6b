"""The command line: parses arguments, calls `api`, and keeps the exit-code contract.

Exit codes: 0 done; 1 done, with findings at or above `--fail-on`; 2 could not run (usage, input,
connection). Every error is one `Error: ...` line on stderr; a traceback appears only with
`SQLSRV2TIDB_DEBUG=1`. No logic lives here.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from . import __version__
from .errors import ToolError, UsageError, one_line
from .model import Finding, Severity

# Typer bundles its own Click; its exception classes are reached through the one Typer exports.
_ClickException = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


class _OneLineUsageErrors(typer.core.TyperGroup):
    """Usage errors (a missing argument, an unknown option or command) as one `Error:` line and exit 2.

    Click would print the usage, a hint and a boxed message on several lines; the contract is one
    line for every error. Help (`--help`, or no arguments at all) is printed as usual.
    """

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _ClickException as exc:
            if type(exc).__name__ != "NoArgsIsHelpError":  # that one printed the help when it was raised
                ctx = getattr(exc, "ctx", None)
                hint = f"; see '{ctx.command_path} --help'" if ctx is not None else ""
                typer.echo(f"Error: {one_line(exc.format_message()).rstrip('.')}{hint}", err=True)
            code = 2
        except typer.Abort:
            typer.echo("Error: aborted", err=True)
            code = 2
        else:
            code = result if isinstance(result, int) else 0  # Exit(n) comes back as n without standalone mode
        if not standalone_mode:
            return code
        sys.exit(code)


LIVE_COMMAND = ('sqlsrv2tidb assess --connection "DRIVER={ODBC Driver 18 for SQL Server};SERVER=sql1;DATABASE=sales;'
                'UID=me" --target mysql://root@tidb:4000/sales --confirm-database sales -o out')
"""From a live server to the whole report in one command: what `--help` shows first."""
HELP = (f"From a live SQL Server to the whole report in one command:\n\n{LIVE_COMMAND}\n\n"
        "Assess, translate and replay a Microsoft SQL Server database and workload on TiDB.")

app = typer.Typer(
    cls=_OneLineUsageErrors,
    name="sqlsrv2tidb",
    help=HELP,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
rules_app = typer.Typer(help="The rules catalogue: what sqlsrv2tidb checks, and why.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")

F = TypeVar("F", bound=Callable[..., Any])


def _fail(message: str) -> typer.Exit:
    typer.echo(f"Error: {one_line(message)}", err=True)
    return typer.Exit(2)


def command(func: F) -> F:
    """Wrap a command so tool errors and surprises become one line and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except typer.Exit:
            raise
        except ToolError as exc:
            if os.environ.get("SQLSRV2TIDB_DEBUG"):
                raise
            raise _fail(str(exc)) from None
        except KeyboardInterrupt:
            raise _fail("interrupted") from None
        except OSError as exc:  # a file or disk the system refused (outdir.py names the file for OUT's own files)
            if os.environ.get("SQLSRV2TIDB_DEBUG"):
                raise
            where = f"{exc.filename}: " if exc.filename else ""
            raise _fail(f"{where}{exc.strerror or exc}") from None
        except Exception as exc:  # noqa: BLE001 - the contract is: never a traceback
            if os.environ.get("SQLSRV2TIDB_DEBUG"):
                raise
            raise _fail(f"internal error: {type(exc).__name__}: {exc} (run with SQLSRV2TIDB_DEBUG=1 for details)") from None

    return wrapper  # type: ignore[return-value]


# Options shared by several commands, defined once.
Sources = Annotated[list[Path], typer.Argument(help="Capture folders, .sql scripts, SSDT folders, XE XML, Query Store exports, workload YAML.", show_default=False)]
Out = Annotated[Path, typer.Option("--output", "-o", help="Folder to write into (new, empty, or written by this tool before).")]
TidbVersion = Annotated[str, typer.Option("--tidb-version", help="TiDB version the plan targets.")]
TargetEngine = Annotated[str | None, typer.Option("--target-engine", help=(
    "tidb or mysql: what the DDL, the translation and the rules are written for (default tidb; assess --target: "
    "the engine of that server)."))]
MysqlVersion = Annotated[str, typer.Option("--mysql-version", help="MySQL version a --target-engine mysql plan targets: a series (8.0, 8.4, 9.7: its current release) or a release (8.0.15).")]
TikvNodes = Annotated[int, typer.Option("--tikv-nodes", help="TiKV nodes in the target cluster (partitions, shard bits).")]
TidbNodes = Annotated[int | None, typer.Option("--tidb-nodes", help="TiDB nodes in the target cluster (default: sized from the workload).")]
Config = Annotated[Path | None, typer.Option("--config", help="YAML with per-table, per-type and per-column overrides.")]
RulesDir = Annotated[Path | None, typer.Option("--rules", help="Folder of rule YAML files that override the built-in ones.")]
TemplatesDir = Annotated[Path | None, typer.Option("--templates", help="Folder of templates that override the built-in ones.")]
FailOn = Annotated[str, typer.Option("--fail-on", help="Exit 1 when a finding is at or above this severity (info, low, medium, high, blocker, never).")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")]


def _options(tidb_version: str, tikv_nodes: int, tidb_nodes: int | None, config: Path | None,
             rules: Path | None = None, templates: Path | None = None, target_engine: str | None = None,
             mysql_version: str = "8.4"):
    from .options import Options, Version, load_config

    return Options(
        tidb_version=Version.parse(tidb_version),
        target_engine=(target_engine or "tidb").lower(),
        mysql_version=Version.release_of(mysql_version),
        tikv_nodes=tikv_nodes,
        tidb_nodes=tidb_nodes,
        config=load_config(config),
        config_file=str(config) if config else None,
        rules_dir=rules,
        templates_dir=templates,
    )


def _progress(quiet: bool):
    from .progress import NullProgress, StderrProgress

    return NullProgress() if quiet else StderrProgress()


def _threshold(fail_on: str) -> Severity | None:
    if fail_on.lower() == "never":
        return None
    try:
        return Severity(fail_on.lower())
    except ValueError:
        raise UsageError(f"--fail-on must be one of {', '.join(s.value for s in Severity)}, never; got {fail_on!r}") from None


def _finish(findings: list[Finding], fail_on: str, wrote: str | None = None) -> None:
    threshold = _threshold(fail_on)
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.severity.value] = counts.get(f.severity.value, 0) + 1
    parts = [f"{counts[s.value]} {s.value}" for s in reversed(Severity) if counts.get(s.value)]
    if wrote:
        typer.echo(f"Wrote {wrote}", err=True)
    typer.echo(f"Findings: {', '.join(parts) if parts else 'none'}", err=True)
    if threshold is not None and any(f.severity >= threshold for f in findings):
        raise typer.Exit(1)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"sqlsrv2tidb {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Show the version.")] = False,
) -> None:
    pass  # the help is the app's (HELP): the one command first


@app.command("schema")
@command
def schema_cmd(
    sources: Sources,
    json_file: Annotated[Path | None, typer.Option("--json", help="Also write the schema model as JSON to FILE.")] = None,
    quiet: Quiet = False,
) -> None:
    """Read SOURCES and print what they hold: objects by kind, per schema."""
    from . import api
    from .summary import format_summary, summarize

    capture = api.run_schema(sources, json_file, _progress(quiet))
    typer.echo(format_summary(summarize(capture)))
    if json_file is not None:
        typer.echo(f"Wrote {json_file}", err=True)


@app.command("ddl")
@command
def ddl_cmd(
    sources: Sources, out: Out, tidb_version: TidbVersion = "8.5", tikv_nodes: TikvNodes = 3,
    tidb_nodes: TidbNodes = None, config: Config = None, rules: RulesDir = None, templates: TemplatesDir = None,
    fail_on: FailOn = "never", quiet: Quiet = False, target_engine: TargetEngine = None,
    mysql_version: MysqlVersion = "8.4",
) -> None:
    """Write TiDB (or MySQL) DDL in apply order (ddl/) and the tables and findings of assessment.json."""
    from . import api

    outcome = api.run_ddl(sources, out, _options(tidb_version, tikv_nodes, tidb_nodes, config, rules, templates,
                                                 target_engine, mysql_version), _progress(quiet))
    _finish(outcome.findings, fail_on, f"{out}/ddl and {out}/assessment.json")


@app.command("translate")
@command
def translate_cmd(
    sources: Sources, out: Out, tidb_version: TidbVersion = "8.5", config: Config = None,
    fail_on: FailOn = "never", quiet: Quiet = False, target_engine: TargetEngine = None,
    mysql_version: MysqlVersion = "8.4",
) -> None:
    """Translate the captured queries to TiDB (or MySQL) SQL, flagging every change of meaning."""
    from . import api

    outcome = api.run_translate(sources, out, _options(tidb_version, 3, None, config, target_engine=target_engine,
                                                       mysql_version=mysql_version), _progress(quiet))
    _finish(outcome.findings, fail_on, f"{out}/queries.sql and {out}/assessment.json")


# Replay options, shared by `replay`, `assess --target` and `experiment`.
Target = Annotated[str | None, typer.Option("--target", help="mysql://user@host:port/database (password: in the URL, $SQLSRV2TIDB_TARGET_PASSWORD, or a prompt).")]
Window = Annotated[str | None, typer.Option("--window", help="Named window of the capture to replay (default: the busiest).")]
Scale = Annotated[float | None, typer.Option("--scale", help="Multiply the captured rates.")]
Qps = Annotated[float | None, typer.Option("--qps", help="Fixed total rate, split over classes as captured.")]
Duration = Annotated[float, typer.Option("--duration", help="Seconds to measure (per ramp step).")]
Warmup = Annotated[float, typer.Option("--warmup", help="Seconds sent before measuring starts.")]
Workers = Annotated[int | None, typer.Option("--workers", help="Sending processes (default: one per core); with --cluster, how many of its workers (default: all).")]
Connections = Annotated[int, typer.Option("--connections", help="Connections in total, over all workers.")]
ArrivalOpt = Annotated[str, typer.Option("--arrival", help="uniform or poisson send times.")]
Timed = Annotated[bool, typer.Option("--timed", help="Replay Extended Events with their original spacing.")]
Speed = Annotated[float, typer.Option("--speed", help="Speed factor for --timed.")]
RampOpt = Annotated[str | None, typer.Option("--ramp", help="START:STEP:MAX: raise the rate until the target no longer keeps up.")]
P99Limit = Annotated[float, typer.Option("--p99-limit", help="p99 latency (ms) a ramp step must stay under.")]
AllowWrites = Annotated[bool, typer.Option("--allow-writes", help="Also send statements that change data.")]
ConfirmDb = Annotated[str | None, typer.Option("--confirm-database", help="The target database's name, required with --allow-writes.")]
Seed = Annotated[int | None, typer.Option("--seed", help=(
    "Seed for generated parameter values: the same seed sends the same statements again. Default: a new seed "
    "each run, written to replay.json, so a rerun does not send the keys of the last one."))]
Driver = Annotated[str, typer.Option("--driver", help="MySQL driver: auto (mysqlclient if installed, else PyMySQL), pymysql, mysqlclient, asyncmy.")]
PromptPassword = Annotated[bool, typer.Option("--password-prompt", help="Ask for the target's password.")]
Protocol = Annotated[str, typer.Option("--protocol", help=(
    "auto: classes captured as RPC calls with parameters (sp_executesql, sp_prepexec) as server-side prepared "
    "statements, the rest as text; text; prepared. Prepared statements need mysqlclient."))]
ClusterOpt = Annotated[str | None, typer.Option("--cluster", help=(
    "A Dask scheduler, tcp://HOST:8786: its workers send the replay, one share of the connections each, "
    "started together (pip install 'sqlsrv2tidb[cluster]' here and on the workers). --workers caps how many."))]


def _replay_config(window, scale, qps, duration, warmup, workers, connections, arrival, timed, speed, ramp,
                   p99_limit, allow_writes, confirm_database, seed, driver, protocol="auto", cluster=None):
    from .replay.config import Ramp, ReplayConfig

    if arrival not in ("uniform", "poisson"):
        raise UsageError(f"--arrival must be uniform or poisson, got {arrival!r}")
    return ReplayConfig(
        window=window, scale=scale, qps=qps, duration=duration, warmup=warmup, workers=workers,
        connections=connections, arrival=arrival, timed=timed, speed=speed,
        ramp=Ramp.parse(ramp) if ramp else None, p99_limit_ms=p99_limit, allow_writes=allow_writes,
        confirm_database=confirm_database, seed=seed, driver=driver, protocol=protocol, cluster=cluster,
    )


AssessSources = Annotated[list[Path] | None, typer.Argument(help=(
    "Capture folders, .sql scripts, SSDT folders, XE XML, Query Store exports, workload YAML; with --connection, "
    "optional: a workload read beside the live capture."), show_default=False)]

@app.command("assess", short_help="Every stage its inputs allow, then report.html: from a live SQL Server (--connection) or SOURCES.", help=(
    "From a live server to the whole report in one command (capture, plan, tables and rows in the target, "
    f"verify, compare the answers, replay, report):\n\n{LIVE_COMMAND}\n\n"
    "Workload files given as SOURCES beside --connection join what Query Store holds; --no-data, --no-compare and "
    "--no-replay leave a stage out, and the same command run again continues what the last run left in OUT. "
    "Without --connection: every stage over SOURCES, and report.html, assessment.json, ddl/ (and replay.json with "
    "--target)."))
@command
def assess_cmd(
    out: Out, sources: AssessSources = None,
    connection: Annotated[str | None, typer.Option("--connection", help='A live SQL Server (ODBC connection string, as capture takes it): capture it, then create its tables and copy its rows into --target, verify them, compare the answers and replay the workload there.')] = None,
    tidb_version: TidbVersion = "8.5", tikv_nodes: TikvNodes = 3,
    tidb_nodes: TidbNodes = None, config: Config = None, rules: RulesDir = None, templates: TemplatesDir = None,
    anonymize: Annotated[bool, typer.Option("--anonymize", help="Replace object names and literals in every output file (with --connection: in a copy, OUT/anonymized/).")] = False,
    target: Target = None, window: Window = None, scale: Scale = None, qps: Qps = None, duration: Duration = 60.0,
    warmup: Warmup = 5.0, workers: Workers = None, connections: Connections = 16, arrival: ArrivalOpt = "uniform",
    timed: Timed = False, speed: Speed = 1.0, ramp: RampOpt = None, p99_limit: P99Limit = 100.0,
    allow_writes: AllowWrites = False, confirm_database: ConfirmDb = None, seed: Seed = None, driver: Driver = "auto",
    protocol: Protocol = "auto", cluster: ClusterOpt = None, password_prompt: PromptPassword = False,
    sample: Annotated[str | None, typer.Option("--sample", help="With --connection: copy PERCENT% of every table, or at most ROWS per table; the parents of sampled rows come along.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="With --connection: tables copied (and verified) at once.")] = 4,
    truncate: Truncate = False,
    no_data: Annotated[bool, typer.Option("--no-data", help="With --connection: create no tables and copy no rows (compare and replay use what the target holds).")] = False,
    no_compare: Annotated[bool, typer.Option("--no-compare", help="With --connection: compare no answers.")] = False,
    no_replay: Annotated[bool, typer.Option("--no-replay", help="With --connection: replay nothing.")] = False,
    restart: Annotated[bool, typer.Option("--restart", help="With --connection: start every stage over (capture again, copy from the start, compare every class) instead of continuing what OUT holds.")] = False,
    query_store: Annotated[bool, typer.Option("--query-store/--no-query-store", help="With --connection: also read Query Store's workload.")] = True,
    days: Annotated[float, typer.Option("--days", help="With --connection: days of Query Store history to read.")] = 7.0,
    password_env: PasswordEnv = "SQLSRV2TIDB_MSSQL_PASSWORD",
    sql_server_password_prompt: Annotated[bool, typer.Option("--sql-server-password-prompt", help="With --connection: ask for the SQL Server password.")] = False,
    timeout: LoginTimeout = 15,
    fail_on: FailOn = "never", quiet: Quiet = False, target_engine: TargetEngine = None,
    mysql_version: MysqlVersion = "8.4",
) -> None:
    from . import api

    replay_target = replay_config = None
    if target is not None:
        from .target import parse_target

        replay_target = parse_target(target, prompt=password_prompt)
        replay_config = _replay_config(window, scale, qps, duration, warmup, workers, connections, arrival, timed,
                                       speed, ramp, p99_limit, allow_writes, confirm_database, seed, driver,
                                       protocol, cluster)
    live = None
    if connection is not None:
        live = api.LiveSource(
            api.SourceLogin(connection, password_env, sql_server_password_prompt, timeout),
            query_store=query_store, days=days, restart=restart, replay=not no_replay,
            data=None if no_data else _data_settings(jobs=jobs, confirm_database=confirm_database, sample=sample,
                                                     truncate=truncate, driver=driver),
            compare=None if no_compare else api.CompareSettings(allow_writes=allow_writes,
                                                                 confirm_database=confirm_database))
    elif not sources:
        raise UsageError("assess needs SOURCES, or --connection to a live SQL Server; see 'sqlsrv2tidb assess --help'")
    outcome = api.run_assess(
        sources or [], out, _options(tidb_version, tikv_nodes, tidb_nodes, config, rules, templates, target_engine,
                                     mysql_version),
        replay_target=replay_target, replay_config=replay_config, anonymize=anonymize, progress=_progress(quiet),
        live=live, engine_from_target=target_engine is None,
    )
    for line in outcome.notes:
        typer.echo(line, err=True)
    _finish(outcome.findings, fail_on, f"{out}/report.html")


@app.command("replay")
@command
def replay_cmd(
    sources: Sources, out: Out, target: Annotated[str, typer.Option("--target", help="mysql://user@host:port/database")],
    tidb_version: TidbVersion = "8.5", config: Config = None,
    window: Window = None, scale: Scale = None, qps: Qps = None, duration: Duration = 60.0,
    warmup: Warmup = 5.0, workers: Workers = None, connections: Connections = 16, arrival: ArrivalOpt = "uniform",
    timed: Timed = False, speed: Speed = 1.0, ramp: RampOpt = None, p99_limit: P99Limit = 100.0,
    allow_writes: AllowWrites = False, confirm_database: ConfirmDb = None, seed: Seed = None, driver: Driver = "auto",
    protocol: Protocol = "auto", cluster: ClusterOpt = None, password_prompt: PromptPassword = False,
    fail_on: FailOn = "never", quiet: Quiet = False,
) -> None:
    """Send the captured workload, translated, to a TiDB/MySQL target at the captured rate."""
    from . import api
    from .target import parse_target

    replay_target = parse_target(target, prompt=password_prompt)
    replay_config = _replay_config(window, scale, qps, duration, warmup, workers, connections, arrival, timed, speed,
                                   ramp, p99_limit, allow_writes, confirm_database, seed, driver, protocol, cluster)
    outcome = api.run_replay(sources, out, _options(tidb_version, 3, None, config), target=replay_target,
                             config=replay_config, progress=_progress(quiet))
    _finish(outcome.findings, fail_on, f"{out}/replay.json")


@app.command("experiment")
@command
def experiment_cmd(
    sources: Sources, out: Out, target: Annotated[str, typer.Option("--target", help="mysql://user@host:port/database")],
    table: Annotated[str, typer.Option("--table", help="The write-hot table ([schema.]name) to try designs for.")],
    tidb_version: TidbVersion = "8.5", tikv_nodes: TikvNodes = 3, config: Config = None,
    window: Window = None, scale: Scale = None, qps: Qps = None, duration: Duration = 30.0, warmup: Warmup = 5.0,
    workers: Workers = None, connections: Connections = 16, ramp: RampOpt = None, p99_limit: P99Limit = 100.0,
    confirm_database: ConfirmDb = None, seed: Seed = None, driver: Driver = "auto", cluster: ClusterOpt = None,
    password_prompt: PromptPassword = False, quiet: Quiet = False,
) -> None:
    """Create each design of one write-hot table side by side on TiDB and replay its inserts against each.

    On MySQL or MariaDB TiDB's table options are comments, so every design would be the same table: the table is measured once, as captured, and the result says so.
    """
    from . import api
    from .target import parse_target

    replay_target = parse_target(target, prompt=password_prompt)
    replay_config = _replay_config(window, scale, qps, duration, warmup, workers, connections, "uniform", False, 1.0,
                                   ramp, p99_limit, confirm_database is not None, confirm_database, seed, driver,
                                   cluster=cluster)
    outcome = api.run_experiment(sources, out, _options(tidb_version, tikv_nodes, None, config), target=replay_target,
                                 table=table, config=replay_config, progress=_progress(quiet))
    _finish(outcome.findings, "never", f"{out}/experiment.json")


@app.command("report")
@command
def report_cmd(
    out: Annotated[Path, typer.Argument(help="A folder written by assess, ddl, translate or replay.")],
    anonymize: Annotated[bool, typer.Option("--anonymize", help=(
        "Write OUT/anonymized/, the folder to share: report.html with assessment.json, ddl/, replay.json and "
        "topology.yaml beside it, the user's object names, literals, window names and descriptions replaced by the "
        "same pseudonyms in every file. OUT itself is left as it is."))] = False,
    templates: TemplatesDir = None, rules: RulesDir = None, quiet: Quiet = False,
) -> None:
    """Re-render report.html from the files in OUT."""
    from . import api

    path = api.render_report(out, anonymize=anonymize, progress=_progress(quiet), templates=templates, rules=rules)
    typer.echo(f"Wrote {path}", err=True)


# SQL Server connection options, shared by `capture` and the `data` commands.
Connection = Annotated[str, typer.Option("--connection", help='ODBC connection string: "DRIVER={FreeTDS};SERVER=host,1433;DATABASE=db;UID=user"')]
PasswordEnv = Annotated[str, typer.Option("--password-env", help="Environment variable holding the SQL Server password.")]
SourcePrompt = Annotated[bool, typer.Option("--password-prompt", help="Ask for the SQL Server password.")]
LoginTimeout = Annotated[int, typer.Option("--timeout", help="Login timeout in seconds.")]


@app.command("capture")
@command
def capture_cmd(
    connection: Connection,
    out: Out,
    password_env: PasswordEnv = "SQLSRV2TIDB_MSSQL_PASSWORD",
    password_prompt: SourcePrompt = False,
    query_store: Annotated[bool, typer.Option("--query-store/--no-query-store", help="Also read Query Store runtime statistics.")] = True,
    days: Annotated[float, typer.Option("--days", help="Days of Query Store history to read.")] = 7.0,
    timeout: LoginTimeout = 15,
    quiet: Quiet = False,
) -> None:
    """Read a live SQL Server's catalog (and Query Store) into a capture folder."""
    from .capture.live import capture_to_folder

    done = capture_to_folder(connection, out, password_env=password_env, prompt=password_prompt,
                             query_store=query_store, days=days, timeout=timeout, progress=_progress(quiet))
    for note in done.notes:
        typer.echo(note, err=True)
    typer.echo(f"Wrote {done.path}", err=True)


@app.command("capture-script")
@command
def capture_script_cmd(
    out: Annotated[Path | None, typer.Option("--output", "-o", help="Write the T-SQL here instead of stdout.")] = None,
    days: Annotated[float, typer.Option("--days", help="Days of Query Store history the script reads.")] = 7.0,
) -> None:
    """Print T-SQL that a DBA runs where the tool cannot connect; its JSON output is a capture source."""
    from .capture.script_export import capture_script
    from .outdir import write_text

    text = capture_script(days=days)
    if out is None:
        sys.stdout.write(text)
    else:
        if out.exists():
            raise UsageError(f"{out} exists; the script is never written over a file")
        write_text(out, text)
        typer.echo(f"Wrote {out}", err=True)


@rules_app.command("list")
@command
def rules_list(
    rules: RulesDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List every rule: code, severity, name and summary."""
    from .rules.catalogue import format_rule_list, load_catalogue

    typer.echo(format_rule_list(load_catalogue(rules), as_json=as_json))


@rules_app.command("show")
@command
def rules_show(code: Annotated[str, typer.Argument(help="A rule code, e.g. DI01.")], rules: RulesDir = None) -> None:
    """Show one rule in full: rationale, examples, remediation, versions, effort, links."""
    from .rules.catalogue import format_rule, load_catalogue

    typer.echo(format_rule(load_catalogue(rules), code))


data_app = typer.Typer(help="Rows in the target: copy them from SQL Server, synthesize them from its statistics, verify them.",
                       no_args_is_help=True)
app.add_typer(data_app, name="data")

# Options shared by the `data` commands.
OptionalSources = Annotated[list[Path] | None, typer.Argument(help="Capture folders or scripts with the schema (default: read it live over --connection).", show_default=False)]
DataTarget = Annotated[str, typer.Option("--target", help="mysql://user@host:port/database (password: in the URL, $SQLSRV2TIDB_TARGET_PASSWORD, or --target-password-prompt).")]
TargetPrompt = Annotated[bool, typer.Option("--target-password-prompt", help="Ask for the target's password.")]
WriteConfirm = Annotated[str | None, typer.Option("--confirm-database", help="The target's database name: required before anything is written.")]
Jobs = Annotated[int, typer.Option("--jobs", "-j", help="Tables loaded (and verified) at once; copy also cuts a large table into this many key ranges, each copied by a process of its own.")]
SplitRows = Annotated[int, typer.Option("--split-rows", help="Copy: a keyed table of at least twice this many rows is cut into up to --jobs key ranges, each copied by a process of its own (0: never).")]
ChunkRows = Annotated[int, typer.Option("--chunk-rows", help="Rows per chunk: the unit of loading, checkpoints and checksums.")]
Tables = Annotated[list[str] | None, typer.Option("--table", help="Only these tables (schema.name or name; * and ? match). Repeatable.")]
Truncate = Annotated[bool, typer.Option("--truncate", help="Empty target tables that already hold rows before loading them.")]
Restart = Annotated[bool, typer.Option("--restart", help="Ignore the checkpoint in OUT and load every table again from the start.")]
CreateTables = Annotated[bool, typer.Option("--create-tables", help="Apply the plan's DDL: tables before the load; indexes, foreign keys and views after.")]
Verify = Annotated[bool, typer.Option("--verify/--no-verify", help="Verify every table after the load.")]
DataSeed = Annotated[int, typer.Option("--seed", help="Seed for sampling and generated values (the same seed gives the same rows).")]


def _data_settings(**given: Any):
    from .data.settings import DataSettings, Sample

    sample = given.pop("sample", None)
    return DataSettings(sample=Sample.parse(sample) if sample else None, tables=tuple(given.pop("tables", None) or ()),
                        **given)


def _data_done(outcome: Any, out: Path, fail_on: str) -> None:
    """Each table's line, the differences verify found, and the exit code."""
    for t in (outcome.assessment or {}).get("tables", []):
        verify = (t.get("verify") or {}).get("status") or "not verified"
        rate = f", {t['rows_per_s']:,.0f} rows/s" if t.get("rows_per_s") else ""
        typer.echo(f"{t['schema']}.{t['name']}: {t['status']}, {t['rows']:,} rows, {t['bytes'] / 1e6:.1f} MB, "
                   f"{t['seconds']:.1f} s{rate}, {t['rejects']} rejected, verify {verify}", err=True)
    for f in outcome.findings:
        if f.rule == "DA02":
            typer.echo(f"{f.object}: {f.message}", err=True)
    _finish(outcome.findings, fail_on, f"{out}/data.json")


@data_app.command("copy")
@command
def data_copy_cmd(
    out: Out, connection: Connection, target: DataTarget, sources: OptionalSources = None,
    confirm_database: WriteConfirm = None,
    sample: Annotated[str | None, typer.Option("--sample", help="PERCENT% of every table, or at most ROWS per table; the parents of sampled rows come along.")] = None,
    jobs: Jobs = 4, chunk_rows: ChunkRows = 10_000, split_rows: SplitRows = 200_000, table: Tables = None,
    truncate: Truncate = False, restart: Restart = False, create_tables: CreateTables = False, verify: Verify = True,
    seed: DataSeed = 1,
    password_env: PasswordEnv = "SQLSRV2TIDB_MSSQL_PASSWORD", password_prompt: SourcePrompt = False,
    timeout: LoginTimeout = 15, target_password_prompt: TargetPrompt = False, driver: Driver = "auto",
    tidb_version: TidbVersion = "8.5", config: Config = None, fail_on: FailOn = "never", quiet: Quiet = False,
) -> None:
    """Copy a SQL Server database (or a sample of it) into the target, chunk by chunk, and verify it."""
    from . import api
    from .target import parse_target

    settings = _data_settings(jobs=jobs, chunk_rows=chunk_rows, split_rows=split_rows, confirm_database=confirm_database,
                              sample=sample,
                              seed=seed, tables=table, truncate=truncate, restart=restart, create_tables=create_tables,
                              verify=verify, driver=driver)
    login = api.SourceLogin(connection, password_env, password_prompt, timeout)
    outcome = api.run_data_copy(sources or [], out, _options(tidb_version, 3, None, config), login=login,
                                target=parse_target(target, prompt=target_password_prompt), settings=settings,
                                progress=_progress(quiet))
    _data_done(outcome, out, fail_on)


@data_app.command("synthesize")
@command
def data_synthesize_cmd(
    sources: Sources, out: Out, target: DataTarget, confirm_database: WriteConfirm = None,
    scale: Annotated[float, typer.Option("--scale", help="Rows per table as a fraction or multiple of the captured counts.")] = 1.0,
    seed: DataSeed = 1, jobs: Jobs = 4, chunk_rows: ChunkRows = 10_000, table: Tables = None, truncate: Truncate = False,
    restart: Restart = False, create_tables: CreateTables = False, verify: Verify = True,
    target_password_prompt: TargetPrompt = False, driver: Driver = "auto", tidb_version: TidbVersion = "8.5",
    config: Config = None, fail_on: FailOn = "never", quiet: Quiet = False,
) -> None:
    """Fill the target with rows generated from the capture's statistics, where the real rows may not leave."""
    from . import api
    from .target import parse_target

    settings = _data_settings(jobs=jobs, chunk_rows=chunk_rows, confirm_database=confirm_database, scale=scale,
                              seed=seed, tables=table, truncate=truncate, restart=restart, create_tables=create_tables,
                              verify=verify, driver=driver)
    outcome = api.run_data_synthesize(sources, out, _options(tidb_version, 3, None, config),
                                      target=parse_target(target, prompt=target_password_prompt), settings=settings,
                                      progress=_progress(quiet))
    _data_done(outcome, out, fail_on)


@data_app.command("verify")
@command
def data_verify_cmd(
    out: Out, connection: Connection, target: DataTarget, sources: OptionalSources = None,
    jobs: Jobs = 4, chunk_rows: ChunkRows = 10_000, table: Tables = None,
    sample: Annotated[bool, typer.Option("--sample", help="The target holds a sample: check only the rows it has.")] = False,
    password_env: PasswordEnv = "SQLSRV2TIDB_MSSQL_PASSWORD", password_prompt: SourcePrompt = False,
    timeout: LoginTimeout = 15, target_password_prompt: TargetPrompt = False, driver: Driver = "auto",
    tidb_version: TidbVersion = "8.5", config: Config = None, fail_on: FailOn = "never", quiet: Quiet = False,
) -> None:
    """Compare the target's rows with SQL Server's, table by table, and print the first keys that differ."""
    from . import api
    from .target import parse_target

    settings = _data_settings(jobs=jobs, chunk_rows=chunk_rows, tables=table, driver=driver,
                              sample="100%" if sample else None)
    login = api.SourceLogin(connection, password_env, password_prompt, timeout)
    outcome = api.run_data_verify(sources or [], out, _options(tidb_version, 3, None, config), login=login,
                                  target=parse_target(target, prompt=target_password_prompt), settings=settings,
                                  progress=_progress(quiet))
    _data_done(outcome, out, fail_on)


@app.command("compare")
@command
def compare_cmd(
    sources: Sources, out: Out, connection: Connection, target: DataTarget,
    parameter_sets: Annotated[int, typer.Option("--parameter-sets", help="Parameter sets per class: the captured ones first, else generated as replay does.")] = 3,
    statement_timeout: Annotated[float, typer.Option("--statement-timeout", help="Seconds each side may take per statement before the class is reported as timed out.")] = 30.0,
    query: Annotated[list[str] | None, typer.Option("--query", help="Only this query class id (repeatable).")] = None,
    reconnect_within: Annotated[float, typer.Option("--reconnect-within", help="Seconds to wait, in all, for a server whose session was lost before the class is an error (waits of 1, 2, 4 ... s).")] = 120.0,
    resume: Annotated[bool, typer.Option("--resume", help="Keep the classes OUT's compare.json already judged (same servers, settings and text) and judge only the others: after a run that stopped or was interrupted.")] = False,
    allow_writes: Annotated[bool, typer.Option("--allow-writes", help="Also run the classes that change data, on both servers, each in a transaction rolled back, and compare their effect on the rows (needs --confirm-database).")] = False,
    confirm_database: ConfirmDb = None,
    seed: DataSeed = 1, password_env: PasswordEnv = "SQLSRV2TIDB_MSSQL_PASSWORD", password_prompt: SourcePrompt = False,
    timeout: LoginTimeout = 15, target_password_prompt: TargetPrompt = False, tidb_version: TidbVersion = "8.5",
    config: Config = None, fail_on: FailOn = "never", quiet: Quiet = False,
) -> None:
    """Run each read query class on SQL Server and, translated, on the target; compare the answers (compare.json).

    Only reads are sent unless --allow-writes: then every write class runs on both servers too, each in a
    transaction rolled back (never committed on SQL Server), and is compared by its effect on the rows. The
    target must hold the same rows (`data copy`)."""
    from . import api
    from .target import parse_target

    settings = api.CompareSettings(parameter_sets=parameter_sets, timeout=statement_timeout, seed=seed,
                                   queries=tuple(query or ()), reconnect_within=reconnect_within, resume=resume,
                                   allow_writes=allow_writes, confirm_database=confirm_database)
    login = api.SourceLogin(connection, password_env, password_prompt, timeout)
    outcome = api.run_compare(sources, out, _options(tidb_version, 3, None, config), login=login,
                              target=parse_target(target, prompt=target_password_prompt), settings=settings,
                              progress=_progress(quiet))
    summary = (outcome.assessment or {}).get("summary", {})
    typer.echo(f"Compared {summary.get('classes', 0)} class(es): {summary.get('same', 0)} same, "
               f"{summary.get('same_up_to_ties', 0)} same up to ties, {summary.get('differs', 0)} differ, {summary.get('error', 0)} error, "
               f"{summary.get('not_comparable', 0)} not comparable, {summary.get('left_out', 0)} left out"
               + (f" ({summary['kept']} kept as the earlier run judged them)" if summary.get("kept") else ""), err=True)
    _finish(outcome.findings, fail_on, f"{out}/compare.json")


def main() -> None:
    app()
