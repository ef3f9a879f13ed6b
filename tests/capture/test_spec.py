"""The workload spec YAML: windows, queries, per-window rates and generators, with errors at file:line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sqlsrv2tidb.capture.spec import looks_like_spec, read_spec
from sqlsrv2tidb.capture.textfile import TextFile, read_text
from sqlsrv2tidb.errors import InputError
from sqlsrv2tidb.model import Generator, Parameter, Workload, from_dict, to_dict
from sqlsrv2tidb.workload_rates import class_rates, executions_in

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "keywords" / "workload.yaml"


def _spec(text: str, name: str = "workload.yaml"):
    return read_spec(TextFile(Path(name), textwrap.dedent(text), "utf-8", False))


def test_seed_000_example_has_the_normal_and_nightly_windows_and_the_keywords_insert_at_its_rate():
    workload, findings = read_spec(read_text(EXAMPLE))
    assert findings == []
    assert [(w.name, w.start, w.end, w.kind) for w in workload.windows] == [
        ("nightly", "2024-12-02T01:00:00Z", "2024-12-02T02:00:00Z", "spec"),
        ("normal", "2024-12-02T09:00:00Z", "2024-12-02T10:00:00Z", "spec"),
    ]
    insert = next(q for q in workload.queries if "dbo.keywords" in q.text and q.kind == "insert")
    assert insert.text == ("INSERT INTO dbo.keywords (e_type, e_id, s_type, r_id, d_order, p_count, p_display_order)\n"
                           "VALUES (@e_type, @e_id, @s_type, @r_id, 1, 1, 1)")
    assert insert.parameters == (Parameter("@e_type", "smallint"), Parameter("@e_id", "int"),
                                 Parameter("@s_type", "smallint"), Parameter("@r_id", "int"))
    assert insert.generators == {
        "@e_type": Generator("random_int", min=1, max=8),
        "@e_id": Generator("random_int", min=1, max=2100000000),
        "@s_type": Generator("random_int", min=1, max=3),
        "@r_id": Generator("random_int", min=1, max=2100000000),
    }
    assert (insert.origin, insert.database, insert.application) == ("spec", "poc", "keywords-batch")
    assert insert.source.file == str(EXAMPLE) and insert.source.line == 23
    nightly, normal = workload.windows
    assert class_rates(workload, nightly)[insert.id] == pytest.approx(50000)
    assert executions_in(workload, nightly)[insert.id] == 50000 * 3600
    normal_rates = class_rates(workload, normal)
    assert normal_rates[insert.id] == pytest.approx(150)
    reads = [q for q in workload.queries if q.kind == "select"]
    assert len(reads) == 4 and all(100 <= normal_rates[q.id] <= 5000 for q in reads)
    assert sum(normal_rates[q.id] for q in workload.queries if q.kind == "insert") < 0.1 * sum(normal_rates.values())
    # The whole workload survives a JSON round trip, as capture.json stores it.
    assert from_dict(Workload, to_dict(workload)) == workload


def test_detection_by_marker_and_yaml_extension():
    assert looks_like_spec(TextFile(Path("w.txt"), "# c\nformat: sqlsrv2tidb.workload/1\n", "utf-8", False))
    assert looks_like_spec(TextFile(Path("w.yml"), "queries: []\n", "utf-8", False))
    assert not looks_like_spec(TextFile(Path("w.sql"), "SELECT 1\n", "utf-8", False))
    with pytest.raises(InputError, match=r"^config.yaml: not a workload spec; it must start with `format: sqlsrv2tidb.workload/1`"):
        _spec("tables:\n  dbo.t: {}\n", "config.yaml")


def test_short_forms_and_inferred_types():
    workload, findings = _spec("""\
        format: sqlsrv2tidb.workload/1
        queries:
          - sql: >-
              SELECT a FROM dbo.t
              WHERE i = @i AND b = @b AND f = @f AND c = @c AND s = @s AND g = @g AND n = @n AND k = @k AND q = @q
            parameters:
              i: {random_int: [1, 5000000000]}
              b: bit
              f: {random_float: {min: 0.5, max: 2}}
              c: {choice: [red, green]}
              s: {sequence: 100}
              g: {uuid: true}
              n: {now: true}
              k: {constant: 7}
              q: {random_string: 12}
            qps: 25
        """)
    assert findings == []
    (q,) = workload.queries
    assert [(p.name, p.type) for p in q.parameters] == [
        ("@i", "bigint"), ("@b", "bit"), ("@f", "float"), ("@c", "nvarchar(5)"), ("@s", "bigint"),
        ("@g", "uniqueidentifier"), ("@n", "datetime2"), ("@k", "int"), ("@q", "nvarchar(12)")]
    assert q.generators["@s"] == Generator("sequence", start=100, step=1)
    assert q.generators["@c"] == Generator("choice", values=("red", "green"))
    assert "@b" not in q.generators  # a type alone: replay makes values of that type
    # No windows: one implicit hour, clearly not a real date.
    (window,) = workload.windows
    assert (window.name, window.start, window.end) == ("default", "2000-01-01T00:00:00Z", "2000-01-01T01:00:00Z")
    assert class_rates(workload, window)[q.id] == pytest.approx(25)


def test_windows_as_a_list_with_durations_and_the_parameter_prefix_form():
    workload, findings = _spec("""\
        format: sqlsrv2tidb.workload/1
        windows:
          - {name: morning, start: "2024-12-02 09:00:00", duration: 1h30m}
          - {name: night, start: 2024-12-02, duration: 600}
        queries:
          - sql: (@id int)DELETE FROM dbo.sessions WHERE id = @id
            parameters: {id: {sequence: {start: 1, step: 2}}}
            qps: {morning: 2, night: 10}
        """)
    assert findings == []
    morning, night = workload.windows
    assert (morning.start, morning.end) == ("2024-12-02T09:00:00Z", "2024-12-02T10:30:00Z")
    assert (night.start, night.end) == ("2024-12-02T00:00:00Z", "2024-12-02T00:10:00Z")
    (q,) = workload.queries
    assert q.text == "DELETE FROM dbo.sessions WHERE id = @id" and q.kind == "delete"
    assert q.parameters == (Parameter("@id", "int"),)  # the declared type wins over the sequence's bigint
    assert executions_in(workload, None)[q.id] == 2 * 5400 + 10 * 600


def test_invalid_queries_are_findings_with_their_line_and_the_rest_is_read():
    workload, findings = _spec("""\
        format: sqlsrv2tidb.workload/1
        windows:
          nightly: {start: 2024-12-02T01:00:00Z, end: 2024-12-02T02:00:00Z}
        queries:
          - name: fine
            sql: SELECT 1 AS one
            qps: {nightly: 1}
          - name: undeclared
            sql: SELECT a FROM dbo.t WHERE id = @id
          - name: unknown-window
            sql: SELECT 2 AS two
            qps: {daytime: 5}
          - name: bad-generator
            sql: SELECT a FROM dbo.t WHERE id = @id
            parameters:
              id: {random_int: [10, 1]}
          - name: two-statements
            sql: SELECT 3 AS three SELECT 4 AS four
          - SELECT 5
        """)
    assert [q.text for q in workload.queries] == ["SELECT 1 AS one"]
    assert [(f.rule, f.line) for f in findings] == [
        ("IN45", 9), ("IN45", 12), ("IN45", 16), ("IN45", 18), ("IN45", 19)]
    assert findings[0].message == ("queries[1] (undeclared): parameter @id is used by the statement but not declared "
                                   "under `parameters:`; this query is left out")
    assert "window 'daytime', which is not defined (windows: nightly)" in findings[1].message
    assert "random_int min 10 is above max 1" in findings[2].message
    assert "holds 2 statements" in findings[3].message
    assert all(f.file == "workload.yaml" for f in findings)


def test_unknown_keys_and_bad_windows():
    workload, findings = _spec("""\
        format: sqlsrv2tidb.workload/1
        windows:
          a: {start: 2024-12-02T02:00:00Z, end: 2024-12-02T01:00:00Z}
          b: {start: soon, end: 2024-12-02T01:00:00Z}
          c: {start: 2024-12-02T01:00:00Z, duration: a while}
          d: {start: 2024-12-02T01:00:00Z, end: 2024-12-02T01:30:00Z, colour: red}
        queries:
          - sql: SELECT 1 AS one
            qsp: 5
        """)
    assert [(f.rule, f.line) for f in findings] == [("IN45", 3), ("IN45", 4), ("IN45", 5), ("IN47", 6), ("IN47", 9)]
    assert [w.name for w in workload.windows] == ["d"]
    assert workload.intervals == ()


@pytest.mark.parametrize(("text", "message"), [
    ("format: sqlsrv2tidb.workload/1\nqueries: [\n", r"^workload.yaml:3: not valid YAML"),
    ("format: sqlsrv2tidb.workload/2\nqueries: []\n", r"^workload.yaml:1: workload spec format 'sqlsrv2tidb.workload/2'"),
    ("format: sqlsrv2tidb.workload/1\nqueries: {}\n", r"^workload.yaml:2: `queries:` must be a list"),
    ("format: sqlsrv2tidb.workload/1\nqueries:\n  - sql: SELECT 1\nqueries: []\n", r"^workload.yaml:4: not valid YAML \(.*duplicate key"),
])
def test_whole_file_errors_stop_with_one_line(text, message):
    with pytest.raises(InputError, match=message) as err:
        _spec(text)
    assert "\n" not in str(err.value)


def test_the_same_statement_twice_adds_its_rates():
    workload, findings = _spec("""\
        format: sqlsrv2tidb.workload/1
        queries:
          - sql: SELECT a FROM dbo.t WHERE id = 1
            qps: 10
          - sql: select a from [dbo].[t] where id = 2
            qps: 5
        """)
    assert findings == []
    (q,) = workload.queries
    assert class_rates(workload, workload.windows[0])[q.id] == pytest.approx(15)


def test_schema_command_summarises_the_keywords_example_with_its_workload():
    from typer.testing import CliRunner

    from sqlsrv2tidb.cli import app

    result = CliRunner().invoke(app, ["schema", "--quiet", str(ROOT / "examples" / "keywords")])
    assert result.exit_code == 0, result.output
    assert "database: poc" in result.stdout
    assert "workload: 6 query classes" in result.stdout


def test_schema_command_refuses_binary_xel_with_one_line():
    from typer.testing import CliRunner

    from sqlsrv2tidb.cli import app

    xel = ROOT / "tests" / "corpus" / "xel-binary-sample" / "sqltrace.xel"
    result = CliRunner().invoke(app, ["schema", "--quiet", str(xel)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {xel}: binary Extended Events file (.xel)")
    assert "fn_xe_file_target_read_file" in lines[0]


def test_a_spec_of_windows_only_names_the_windows_of_the_other_sources(tmp_path):
    from sqlsrv2tidb import api

    xe = ROOT / "tests" / "corpus" / "xe-xml-events" / "multiple_events.xml"
    alone = api.read([xe]).workload
    assert [w.name for w in alone.windows] == ["peak"], "detected when nobody names a window"
    spec = tmp_path / "windows.yaml"
    spec.write_text(textwrap.dedent("""\
        format: sqlsrv2tidb.workload/1
        windows:
          lunch: {start: 2023-01-01T12:00:00Z, end: 2023-01-01T12:01:00Z, description: first minute}
          later: {start: 2023-01-01T12:01:00Z, duration: 5m}
        """))
    workload = api.read([xe, spec]).workload
    assert [(w.name, w.kind, w.description) for w in workload.windows] == [
        ("lunch", "spec", "first minute"), ("later", "spec", None)]
    assert [q.id for q in workload.queries] == [q.id for q in alone.queries]
    lunch, later = workload.windows
    assert sum(executions_in(workload, lunch).values()) + sum(executions_in(workload, later).values()) == \
        pytest.approx(sum(i.executions for i in alone.intervals))
    assert any("2 window(s) named for the other sources: lunch, later" in note for note in workload.notes)


def test_a_spec_without_queries_or_usable_windows_is_one_line_error():
    with pytest.raises(InputError, match=r"workload.yaml:1: `queries:` must be a list of queries \(or give only"):
        _spec("format: sqlsrv2tidb.workload/1\n")
    with pytest.raises(InputError, match="`windows:` names no usable window"):
        _spec("""\
            format: sqlsrv2tidb.workload/1
            windows:
              broken: {start: 2023-01-01T12:00:00Z}
            """)
