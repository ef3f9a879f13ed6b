"""Extended Events XML becomes query classes with their texts, timings, sessions and per-minute rates."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqlsrv2tidb.capture.textfile import TextFile, read_text
from sqlsrv2tidb.capture.xevents import is_xel, looks_like_xevents, read_xel, read_xevents, read_xevents_file
from sqlsrv2tidb.errors import InputError
from sqlsrv2tidb.model import Parameter, Window
from sqlsrv2tidb.workload_durations import captured_durations
from sqlsrv2tidb.workload_rates import class_rates, executions_in

HERE = Path(__file__).resolve().parent
XE = HERE / "data" / "xe"
CORPUS = HERE.parent / "corpus"


def _read(path: Path):
    return read_xevents(read_text(path))


def _text(text: str, name: str = "events.xml"):
    return read_xevents(TextFile(Path(name), text, "utf-8", False))


def test_real_sql_batch_completed_event_splits_its_batch_and_keeps_its_timings():
    workload, findings = _read(CORPUS / "xe-xml-events" / "sql_batch_completed.xml")
    assert findings == []
    # The batch declares @session_name with a literal and runs two SELECTs with it: two classes
    # (the DECLARE is a binding), each with the variable as a typed parameter and its value.
    assert [q.kind for q in workload.queries] == ["select", "select"]
    first, second = workload.queries
    assert first.text.startswith("SELECT\nDATALENGTH(target_data) / 1024.0 AS ring_buffer_kb\nFROM sys.dm_xe_session_targets AS t")
    assert first.text.endswith("AND t.target_name = 'ring_buffer'")
    assert "\t" not in first.text and "\t" not in second.text  # the pretty-printer's indent is gone
    assert "CROSS APPLY target_xml.nodes('//RingBufferTarget/event[position() <= 100]') AS XTbl(event_data)" in second.text
    for q in workload.queries:
        assert q.parameters == (Parameter("@session_name", "nvarchar(100)"),)
        assert q.samples == (("datadog_sp_statement_completed",),)
        assert (q.database, q.user, q.application) == ("master", "datadog", "azdata")
        assert q.origin == "xevents" and q.source.line == 1
    # duration 4829704 µs and cpu 2844000 µs, shared by the two statements, add up to the event's.
    assert sum(i.total_duration_us for i in workload.intervals) == pytest.approx(4829704)
    assert sum(i.total_cpu_us for i in workload.intervals) == pytest.approx(2844000)
    assert sum(i.total_logical_reads for i in workload.intervals) == pytest.approx(46)
    assert [(e.timestamp, e.session_id, e.event) for e in workload.events] == [
        ("2025-04-24T20:56:52.809000Z", 123, "sql_batch_completed")] * 2
    assert any("held several statements" in n for n in workload.notes)
    # Datadog's session filters on duration > 1 s, and the event shows it: the rates are a lower bound.
    assert any("lower bound" in n for n in workload.notes)


def test_multiple_events_file_counts_error_reported_without_making_it_a_class():
    workload, findings = _read(CORPUS / "xe-xml-events" / "multiple_events.xml")
    assert findings == []
    by_text = {q.text: q for q in workload.queries}
    # The ad-hoc statement's value is a parameter, as SQL Server's simple parameterization names it; so is a
    # procedure call's argument, which the procedure runner replays each call with.
    assert set(by_text) == {"SELECT * FROM Customers WHERE CustomerId = @1",
                            "EXEC sp_GetCustomerDetails @CustomerId = @1"}
    select = by_text["SELECT * FROM Customers WHERE CustomerId = @1"]
    assert (select.parameters, select.samples, select.samples_from) == ((Parameter("@1", "int"),), ((123,),), 1)
    proc = by_text["EXEC sp_GetCustomerDetails @CustomerId = @1"]
    assert (proc.kind, proc.procedure, proc.database) == ("exec", "sp_GetCustomerDetails", "TestDB")
    assert (proc.parameters, proc.samples) == ((Parameter("@1", "int"),), ((123,),))
    assert all("1/0" not in q.text for q in workload.queries)
    assert any("1 error_reported" in n and "not made query classes" in n for n in workload.notes)
    durations = sorted((e.session_id, e.duration_us) for e in workload.events)
    assert durations == [(123, 10000), (124, 5000)]
    assert sum(executions_in(workload, None).values()) == 2


def test_rpc_completed_sp_executesql_unwraps_to_statement_and_values():
    workload, findings = _read(XE / "rpc_completed.xml")
    assert findings == []
    (q,) = workload.queries
    assert q.text.startswith("EXECUTE [msdb].[dbo].[sp_agent_log_job_history] @job_id = @P1, @is_system = @P2,")
    assert q.text.endswith("@session_id  = @P14, @message = @P15")
    assert q.kind == "exec" and q.procedure == "msdb.dbo.sp_agent_log_job_history"
    assert q.parameters[0] == Parameter("@P1", "uniqueidentifier")
    assert q.parameters[-1] == Parameter("@P15", "nvarchar(4000)")
    assert len(q.parameters) == 15
    values = q.samples[0]
    assert values[0] == "B3A023D3-F7F8-4D17-8524-59471E098205"
    assert values[6:9] == (20250424, 205701, 1)
    assert values[14].startswith("The job failed.  The Job was invoked by Schedule 9")
    assert (q.database, q.user, q.application) == ("msdb", "NT AUTHORITY\\NETWORK SERVICE", "SQLAgent - Job Manager")
    (event,) = workload.events
    assert (event.session_id, event.duration_us, event.cpu_us, event.rows, event.logical_reads) == (203, 2699535, 16000, 24, 75)
    assert event.values == values and event.error is False
    (interval,) = workload.intervals
    assert interval.executions == 1 and interval.total_duration_us == 2699535


def test_ring_buffer_with_cdata_and_types():
    workload, findings = _read(XE / "ring_buffer.xml")
    assert findings == []
    kinds = sorted(q.kind for q in workload.queries)
    assert kinds == ["insert", "select"]  # the two e-mail lookups share a fingerprint
    select = next(q for q in workload.queries if q.kind == "select")
    assert select.text == "SELECT user_id, display_name FROM dbo.users WHERE email = @1"
    assert select.parameters == (Parameter("@1", "nvarchar(4000)"),) and select.call == "batch"
    assert sorted(select.samples) == [("ana@example.com",), ("o'brien@example.com",)]  # each lookup its own value
    assert (select.database, select.user, select.application) == ("poc", "web_user", "reviews-web")
    counts = executions_in(workload, None)
    assert counts[select.id] == 2
    assert any("1 lock_acquired" in n for n in workload.notes)
    # Two minutes of events: 09:00 holds both lookups, 09:01 the insert.
    minutes = sorted({(i.start[:16], i.query_id) for i in workload.intervals})
    assert [m for m, _ in minutes] == ["2024-12-02T09:00", "2024-12-02T09:01"]
    lookups = next(i for i in workload.intervals if i.query_id == select.id)
    assert (lookups.min_duration_us, lookups.max_duration_us, lookups.total_cpu_us) == (850, 910, 1350)


def test_event_file_rows_one_per_line_without_types_positional_and_named_values():
    workload, findings = _read(XE / "event_rows.xml")
    assert findings == []
    (q,) = workload.queries
    assert q.text == ("INSERT INTO dbo.keywords (e_type, e_id, s_type, r_id, d_order, p_count, p_display_order) "
                      "VALUES (@P1, @P2, @P3, @P4, 1, 1, 1)")
    assert [p.type for p in q.parameters] == ["smallint", "int", "smallint", "int"]
    # Every execution's values, repeats included, so that replay draws them in the captured proportions.
    assert q.samples == ((3, 1844674407, 2, 99), (8, 12, 1, 2100000000), (3, 1844674407, 2, 99))
    assert q.samples_from == 3 and q.call == "rpc"
    assert [e.values for e in workload.events][1] == (8, 12, 1, 2100000000)
    assert [e.error for e in workload.events] == [False, False, True]  # result 2 (Abort)
    (interval,) = workload.intervals
    assert (interval.executions, interval.errors) == (3, 1)
    assert q.application == "keywords-batch"


def test_prepexec_then_execute_resolves_handles_per_session():
    workload, findings = _read(XE / "prepared.xml")
    photos = next(q for q in workload.queries if "dbo.photos" in q.text)
    users = next(q for q in workload.queries if "dbo.users" in q.text)
    proc = next(q for q in workload.queries if q.kind == "exec")
    counts = executions_in(workload, None)
    # Session 51: prepexec(42), execute 1 -> 43, execute 1 @P1=44; after sp_unprepare, handle 1 is gone.
    assert counts[photos.id] == 3
    assert photos.samples == ((42,), (43,), (44,)) and photos.call == "rpc"
    # Session 52 also got handle 1, for another statement: it must not resolve to session 51's.
    assert counts[users.id] == 2
    assert users.samples == (("bo@example.com",), ("chen@example.com",))
    assert users.parameters == (Parameter("@P1", "nvarchar(256)"),)
    assert proc.procedure == "dbo.usp_ReviewSummary"
    assert proc.text == "exec dbo.usp_ReviewSummary @e_type=@1,@e_id=@2,@since=@3"
    assert proc.samples == ((3, 1500, "2024-11-01"),)
    (finding,) = findings
    assert finding.rule == "IN42" and finding.details["count"] == 1 and finding.line == 44
    assert any(n.endswith("1 sp_unprepare — driver calls that run no statement of their own (a prepare, a cursor "
                          "fetch, a connection reset): not counted as executions") for n in workload.notes)


def test_interval_rates_of_a_short_capture_are_not_spread_over_a_minute():
    rows = "\n".join(
        f'<event name="sql_batch_completed" timestamp="2024-12-02T09:00:{10 + i // 10:02d}.{(i % 10) * 100:03d}Z">'
        f'<data name="duration"><value>100</value></data><data name="batch_text"><value>SELECT {i}</value></data></event>'
        for i in range(100)
    )
    workload, _ = _text(rows)
    (qid,) = [q.id for q in workload.queries]
    # 100 events 0.1 s apart: about 10 per second, not 100 per minute.
    assert class_rates(workload)[qid] == pytest.approx(10.0, rel=0.05)
    assert not any("lower bound" in n for n in workload.notes)


def test_many_executions_of_few_shapes_give_few_classes_with_capped_samples():
    shapes = [
        "exec sp_executesql N'SELECT r_id FROM dbo.keywords WHERE e_type = @P1 AND e_id = @P2',N'@P1 smallint,@P2 int',{a},{b}",
        "SELECT display_name FROM dbo.users WHERE user_id = {b}",
        "exec sp_executesql N'UPDATE dbo.reviews SET rating = @P1 WHERE r_id = @P2',N'@P1 tinyint,@P2 int',{a},{b}",
    ]
    rows = []
    for i in range(10_000):
        shape = shapes[i % 3].format(a=i % 8 + 1, b=i)
        event = "rpc_completed" if "sp_executesql" in shape else "sql_batch_completed"
        field = "statement" if event == "rpc_completed" else "batch_text"
        second, milli = divmod(i, 1000)
        rows.append(f'<event name="{event}" timestamp="2024-12-02T09:{second // 60:02d}:{second % 60:02d}.{milli:03d}Z">'
                    f'<data name="duration"><value>{200 + i % 50}</value></data>'
                    f'<data name="{field}"><value>{shape.replace("<", "&lt;")}</value></data>'
                    f'<action name="session_id"><value>{50 + i % 7}</value></action></event>')
    workload, findings = _text("\n".join(rows))
    assert findings == []
    assert len(workload.queries) == 3
    assert sum(executions_in(workload, None).values()) == 10_000
    assert len(workload.events) == 10_000
    # Each class keeps a bounded, uniform sample of its executions' values and counts them all.
    assert all(len(q.samples) == 1000 for q in workload.queries)
    assert sorted(q.samples_from for q in workload.queries) == [3333, 3333, 3334]
    assert sorted(len(q.parameters) for q in workload.queries) == [1, 2, 2]  # the ad-hoc lookup's value is `@1`
    lookup = next(q for q in workload.queries if q.call == "batch")
    assert lookup.text == "SELECT display_name FROM dbo.users WHERE user_id = @1"
    # Uniform: the kept user ids spread over the whole capture, not its first thousand executions.
    ids = sorted(v for (v,) in lookup.samples)
    assert ids[0] < 1000 and ids[-1] > 9000 and 4000 < ids[len(ids) // 2] < 6000


def test_binary_xel_is_recognised_and_refused_with_export_instructions():
    path = CORPUS / "xel-binary-sample" / "sqltrace.xel"
    data = path.read_bytes()
    assert is_xel(data)
    assert not is_xel((XE / "ring_buffer.xml").read_bytes())
    assert not is_xel("<events>".encode("utf-16"))
    with pytest.raises(InputError) as err:
        read_xel(path, data)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: binary Extended Events file (.xel)")
    assert "sys.fn_xe_file_target_read_file(N'sqltrace*.xel', NULL, NULL, NULL)" in message


def test_detection_of_event_xml():
    assert looks_like_xevents('<?xml version="1.0"?>\n<RingBufferTarget truncated="0">')
    assert looks_like_xevents('<event name="rpc_completed" package="sqlserver" timestamp="x">')
    assert looks_like_xevents((CORPUS / "xe-xml-events" / "multiple_events.xml").read_text()[:4096])
    assert not looks_like_xevents("<Project><ItemGroup/></Project>")
    assert not looks_like_xevents('<TraceData xmlns="http://tempuri.org/TracePersistence.xsd">')


def test_broken_xml_keeps_the_events_before_the_break():
    text = (XE / "event_rows.xml").read_text()
    cut = text[: text.rindex("<data name=\"statement\">")]
    workload, findings = _text(cut)
    assert sum(executions_in(workload, None).values()) == 2
    (finding,) = findings
    assert finding.rule == "IN41" and finding.line == 3
    with pytest.raises(InputError, match=r"^events.xml:1: not well-formed XML"):
        _text('<events><event name="rpc_completed" timestamp="2024-12-02T09:00:00Z"><data></events>')


def test_ring_buffer_that_dropped_events_says_the_rates_are_a_lower_bound():
    text = (XE / "ring_buffer.xml").read_text().replace('droppedCount="0"', 'droppedCount="12"')
    workload, _ = _text(text)
    assert any("dropped 12 event(s)" in n for n in workload.notes)


def test_events_without_text_or_timestamp_are_counted_as_one_finding():
    text = (
        '<events><event name="sql_batch_completed" timestamp="2024-12-02T09:00:00Z"><data name="batch_text"><value>SELECT 1</value></data></event>\n'
        '<event name="sql_batch_completed" timestamp="2024-12-02T09:00:01Z"><data name="duration"><value>5</value></data></event>\n'
        '<event name="sql_batch_completed" timestamp="yesterday"><data name="batch_text"><value>SELECT 2</value></data></event>\n'
        '<event name="sql_batch_completed" timestamp="2024-12-02T09:00:03Z"><data name="batch_text"><value></value></data></event></events>'
    )
    workload, findings = _text(text)
    assert len(workload.queries) == 1
    (finding,) = findings
    assert finding.rule == "IN40" and finding.details["count"] == 3 and finding.line == 2


def test_sql_text_action_stands_in_when_the_statement_field_was_not_collected():
    text = ('<event name="rpc_completed" timestamp="2024-12-02T09:00:00Z"><data name="statement"><value /></data>'
            '<action name="sql_text"><value>(@P1 int)SELECT url FROM dbo.photos WHERE r_id = @P1</value></action></event>')
    workload, findings = _text(text)
    assert findings == []
    (q,) = workload.queries
    assert q.text == "SELECT url FROM dbo.photos WHERE r_id = @P1"
    assert q.parameters == (Parameter("@P1", "int"),) and q.samples == ()


def test_a_statement_event_that_uses_what_its_batch_made_keeps_the_batch_from_its_sql_text():
    batch = "SELECT id INTO #recent FROM dbo.posts WHERE score > 10;\nSELECT COUNT(*) FROM #recent;\nSELECT 1"
    text = "".join(f'<event name="sql_statement_completed" timestamp="2024-12-02T09:00:0{i}Z"><data name="statement">'
                   f'<value>{statement}</value></data><action name="sql_text"><value>{batch}</value></action></event>'
                   for i, statement in enumerate(("SELECT COUNT(*) FROM #recent", "SELECT 1")))
    workload, _ = _text(f"<events>{text}</events>")
    batches = {q.text: q.batch for q in workload.queries}
    assert batches == {"SELECT COUNT(*) FROM #recent": batch[:batch.index(";\nSELECT 1")], "SELECT 1": None}


def test_statement_and_batch_events_together_are_noted_as_possible_double_count():
    text = (
        '<events><event name="sql_batch_completed" timestamp="2024-12-02T09:00:00Z"><data name="batch_text"><value>SELECT 1</value></data></event>'
        '<event name="sql_statement_completed" timestamp="2024-12-02T09:00:00Z"><data name="statement"><value>SELECT 1</value></data></event>'
        '<event name="sp_statement_completed" timestamp="2024-12-02T09:00:01Z"><data name="object_name"><value>usp_x</value></data>'
        '<data name="statement"><value>UPDATE dbo.t SET a = 1</value></data></event></events>'
    )
    workload, _ = _text(text)
    assert any("counted twice" in n for n in workload.notes)
    update = next(q for q in workload.queries if q.kind == "update")
    assert update.procedure == "usp_x"


def test_streaming_from_disk_reads_the_same_workload(tmp_path):
    path = tmp_path / "events.xml"
    original = (XE / "prepared.xml").read_text()
    path.write_text('<?xml version="1.0" encoding="utf-16"?>\n' + original, encoding="utf-16")
    streamed, findings = read_xevents_file(path)
    direct, _ = _read(XE / "prepared.xml")
    assert [q.text for q in streamed.queries] == [q.text for q in direct.queries]
    assert [q.source.line for q in streamed.queries] == [q.source.line + 1 for q in direct.queries]
    assert [(e.timestamp, e.values) for e in streamed.events] == [(e.timestamp, e.values) for e in direct.events]
    assert [f.line for f in findings] == [45]  # the declaration line shifts the file by one


def test_events_of_several_files_merge_in_time_order(tmp_path):
    from sqlsrv2tidb.capture.sources import read_sources

    def event(ts: str, sql: str) -> str:
        return (f'<event name="sql_batch_completed" timestamp="{ts}">'
                f'<data name="batch_text"><value>{sql}</value></data></event>\n')

    (tmp_path / "a.xml").write_text(event("2024-12-02T09:00:00.500Z", "SELECT a FROM t"))
    (tmp_path / "b.xml").write_text(event("2024-12-02T09:00:00Z", "SELECT b FROM t") +
                                    event("2024-12-02T09:00:01Z", "SELECT c FROM t"))
    workload = read_sources([tmp_path / "a.xml", tmp_path / "b.xml"]).workload
    # Whole seconds are written without a fraction: time order is not the text's order.
    assert [e.timestamp for e in workload.events] == [
        "2024-12-02T09:00:00Z", "2024-12-02T09:00:00.500000Z", "2024-12-02T09:00:01Z"]


def test_every_executions_duration_is_kept_so_percentiles_can_be_read():
    # 1,000 executions of one statement over two minutes: 1..1,000 ms, one of each, in shuffled order.
    order = [(i * 337) % 1000 for i in range(1000)]
    rows = "\n".join(
        f'<event name="sql_batch_completed" timestamp="2024-12-02T09:{i * 120 // 1000 // 60:02d}:'
        f'{i * 120 // 1000 % 60:02d}.{i * 120 % 1000:03d}Z">'
        f'<data name="duration"><value>{(ms + 1) * 1000}</value></data>'
        f'<data name="batch_text"><value>SELECT * FROM dbo.users WHERE user_id = 7</value></data></event>'
        for i, ms in enumerate(order)
    )
    workload, _ = _text(rows)
    (qid,) = [q.id for q in workload.queries]
    assert len(workload.intervals) == 2 and all(i.duration_buckets for i in workload.intervals)
    d = captured_durations(workload)[qid]
    assert d.executions == 1000 and d.avg_us == pytest.approx(500_500)
    assert (d.min_us, d.max_us) == (1000, 1_000_000)
    # Buckets are within 1/64 of the value (sqlsrv2tidb.histogram).
    for p, expected_ms in ((50, 500), (95, 950), (99, 990)):
        assert d.percentile_us(p) == pytest.approx(expected_ms * 1000, rel=1 / 64)
    second_minute = Window("later", "2024-12-02T09:01:00Z", "2024-12-02T09:02:00Z")
    later = captured_durations(workload, second_minute)[qid]
    assert later.executions == sum(i.executions for i in workload.intervals if i.start >= "2024-12-02T09:01")
    assert later.histogram.count == later.executions


def test_a_query_store_interval_has_no_percentiles():
    from sqlsrv2tidb.model import IntervalStat, Workload

    workload = Workload(intervals=(IntervalStat("q", "2024-12-02T09:00:00Z", "2024-12-02T10:00:00Z", 10,
                                                total_duration_us=5000.0, min_duration_us=100.0,
                                                max_duration_us=2000.0),))
    d = captured_durations(workload)["q"]
    assert d.avg_us == 500.0 and d.percentile_us(95) is None
