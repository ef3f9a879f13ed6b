"""The readiness verdict, the effort estimate and the replay comparison: the report's own decisions."""

from __future__ import annotations

import pytest

from sqlsrv2tidb.report import compare
from sqlsrv2tidb.report.rulesinfo import RuleInfo
from sqlsrv2tidb.report.verdict import NOT_READY, NOTE, READY, WITH_CHANGES, decide, estimate


def f(rule: str, severity: str, obj: str = "dbo.t", **details: object) -> dict:
    return {"rule": rule, "severity": severity, "object": obj, "message": "m", "details": details}


def q(qid: str, status: str = "translated", executions: int = 1000, avg_us: float | None = 1000.0) -> dict:
    return {"id": qid, "status": status, "executions": executions, "avg_duration_us": avg_us, "kind": "select"}


def test_clean_assessment_is_ready_and_says_the_load_was_not_measured():
    v = decide([f("ID01", "info"), f("IX03", "low")], [q("q1"), q("q2", "rewritten")], None)
    assert v.level == READY and v.label == "Ready"
    assert v.reasons[0].level == READY
    assert any(r.level == NOTE and "--target" in r.text for r in v.reasons)


def test_a_run_given_a_target_that_left_the_replay_out_does_not_ask_for_a_target():
    answers = {"queries": [{"id": "q1", "verdict": "same"}]}
    v = decide([], [q("q1")], None, answers=answers)
    notes = [r.text for r in v.reasons if r.level == NOTE]
    assert any("replay was left out" in text for text in notes), notes
    assert not any("with --target" in text for text in notes), notes


def test_a_write_whose_difference_a_schema_rule_names_is_explained_and_one_no_rule_names_is_not():
    explained = {"id": "q1", "verdict": "differs", "translation_status": "translated", "notes": [],
                 "explained_by": ["MO10"]}
    unexplained = {"id": "q2", "verdict": "differs", "translation_status": "translated", "notes": []}
    v = decide([], [q("q1"), q("q2")], None, answers={"queries": [explained, unexplained]})
    assert v.level == NOT_READY
    texts = [r.text for r in v.reasons]
    assert any("nothing explains why (q2)" in t for t in texts), texts
    assert any(r.level == WITH_CHANGES and "1 query class answers differently" in r.text for r in v.reasons), texts


@pytest.mark.parametrize(("findings", "queries", "expected"), [
    ([f("TB01", "high")], [], WITH_CHANGES),
    ([f("TY02", "medium")], [], WITH_CHANGES),
    ([], [q("q1", "unsupported")], WITH_CHANGES),
    ([], [q("q1", "review")], WITH_CHANGES),
    ([f("MO01", "blocker"), f("TY02", "medium")], [q("q1", "unsupported")], NOT_READY),
])
def test_level_is_the_worst_reason(findings, queries, expected):
    v = decide(findings, queries, None)
    assert v.level == expected
    assert v.reasons[0].level == expected  # the decisive reason comes first


def test_blocker_reason_names_the_rules_with_counts():
    v = decide([f("MO01", "blocker"), f("MO01", "blocker"), f("TB09", "blocker")], [], None)
    assert v.reasons[0].text == "3 blocker findings (MO01 ×2, TB09)"


def test_replay_that_did_not_sustain_is_not_ready_and_shows_p99_against_the_limit():
    replay = {"target_qps": 50_000, "achieved_qps": 24_000, "sustained": False, "statements": 10, "errors": 0,
              "latency_ms": {"p99": 140.0}, "config": {"p99_limit_ms": 100.0}}
    v = decide([], [], replay)
    assert v.level == NOT_READY
    assert v.reasons[0].text == ("the replay did not sustain its target: 24,000 of 50,000 queries per second (48%), "
                                 "p99 140 ms against a limit of 100 ms")


def test_replay_without_sustained_flag_uses_ninety_percent():
    assert decide([], [], {"target_qps": 100.0, "achieved_qps": 89.0}).level == NOT_READY
    held = decide([], [], {"target_qps": 100.0, "achieved_qps": 91.0})
    assert held.level == READY
    assert any("held 91 of 100" in r.text for r in held.reasons)


def test_ramp_ceiling_below_the_captured_rate_is_not_ready():
    ramp = {"mode": "ramp", "captured_qps": 30_000, "target_qps": 20_000, "achieved_qps": 19_900, "sustained": True,
            "ramp": {"ceiling_qps": 20_000, "steps": []}}
    v = decide([], [], ramp)
    assert v.level == NOT_READY and "ceiling, 20,000 queries per second, is below the captured 30,000" in v.reasons[0].text
    ramp["ramp"]["ceiling_qps"] = 40_000
    assert decide([], [], ramp).level == READY
    ramp["ramp"]["ceiling_qps"] = None
    assert decide([], [], ramp).reasons[0].text == "the ramp found no rate the target sustained"


def test_replay_errors_over_one_percent_are_not_ready():
    replay = {"target_qps": 100.0, "achieved_qps": 100.0, "sustained": True, "statements": 1000, "errors": 20}
    v = decide([], [], replay)
    assert v.level == NOT_READY and "20 of 1,000 replayed statements failed (2.0%)" in v.reasons[0].text


def test_degraded_and_failing_classes_need_changes():
    replay = {"target_qps": 100.0, "achieved_qps": 100.0, "sustained": True, "statements": 1000, "errors": 1}
    v = decide([], [], replay, {"degraded": 2, "errors": 1})
    assert v.level == WITH_CHANGES
    texts = [r.text for r in v.reasons]
    # No server-side figures in the file: the reason says the comparison was at the client.
    assert ("2 query classes ran slower on the target than on SQL Server (the target's latency measured at the "
            "client against SQL Server's server-side time)") in texts
    assert "1 query class failed on the target" in texts


def test_degraded_reason_names_server_time_when_both_sides_have_it():
    replay = {"target_qps": 100.0, "achieved_qps": 100.0, "sustained": True, "statements": 1000, "errors": 0,
              "per_query": [{"id": "qa", "server_ms": {"mean": 1.47}}]}
    texts = [r.text for r in decide([], [], replay, {"degraded": 1}).reasons]
    assert "1 query class ran slower on the target than on SQL Server (server-side time on both sides)" in texts
    replay["per_query"].append({"id": "qb", "latency_ms": {"mean": 2.0}})
    texts = [r.text for r in decide([], [], replay, {"degraded": 1}).reasons]
    assert any("server-side time where the target reported it, else its latency measured at the client" in t
               for t in texts)


def test_server_side_time_is_compared_with_sql_servers_when_the_replay_has_it():
    """The issue's case: SQL Server 0.04 ms (server-side) against TiDB 1.8 ms at the client, 0.05 ms inside TiDB."""
    queries = [q("qa", avg_us=40.0), q("qb", avg_us=40.0)]
    per_query = [
        {"id": "qa", "statements": 100, "errors": 0, "latency_ms": {"mean": 1.8},
         "server_ms": {"mean": 0.045, "source": "TiDB statements summary"}},
        {"id": "qb", "statements": 100, "errors": 0, "latency_ms": {"mean": 1.8, "p95": 3.0},
         "captured_duration_ms": {"avg": 0.04, "p95": 0.05}},
    ]
    results = {r.id: r for r in compare.classify(queries, per_query)}
    assert (results["qa"].category, results["qa"].basis, results["qa"].target_ms) == ("unchanged", "server", 0.045)
    assert results["qa"].why == "server-side mean within 25%"
    # Without a server-side figure the client latency is all there is: degraded, and it says where it was measured.
    assert (results["qb"].category, results["qb"].basis) == ("degraded", "client")
    assert results["qb"].why == "mean at the client 1.80 ms vs 0.040 ms; p95 3.00 ms vs 0.050 ms"


def test_effort_sums_catalogue_buckets_with_overrides_and_hand_work():
    rules = {"TY02": RuleInfo("TY02", "dt", effort="simple"), "MO01": RuleInfo("MO01", "clr", effort="significant")}
    findings = [f("TY02", "medium"), f("TY02", "medium"), f("MO01", "blocker"), f("MO01", "high", effort_days=10),
                f("XX99", "low"), f("TY02", "info"), f("QY09", "high", "query q2")]
    queries = [q("q1", "unsupported"), q("q2", "unsupported"), q("q3", "review"), q("q4", "translated")]
    effort = estimate(findings, queries, rules)
    lines = {line.rule: line for line in effort.lines}
    assert lines["TY02"].findings == 3 and lines["TY02"].days == 0.5  # info costs nothing
    assert lines["MO01"].days == 13.0  # 3 + the finding's own 10
    assert lines["XX99"].name == "(not in the catalogue)" and lines["XX99"].days == 1.0
    assert lines["QY09"].days == 1.0
    assert lines["—"].findings == 2 and lines["—"].days == 2.0  # q1 and q3 have no finding; q2 has QY09
    assert effort.total_days == 17.5 and effort.total_text == "17.5"
    assert [line.rule for line in effort.lines][0] == "MO01"  # the most expensive first


def test_comparison_sorts_classes_with_threshold_and_minimum_executions():
    queries = [q("qa", avg_us=1000.0), q("qb", avg_us=1000.0), q("qc", avg_us=1000.0), q("qd", avg_us=1000.0),
               q("qe", avg_us=None), q("qf", executions=5), q("qg"), q("qh")]
    per_query = [
        {"id": "qa", "statements": 100, "errors": 0, "latency_ms": {"mean": 1.3, "p50": 1.0}},  # 1.3x: degraded
        {"id": "qb", "statements": 100, "errors": 0, "latency_ms": {"mean": 1.2, "p50": 9.0}},  # 1.2x: unchanged
        {"id": "qc", "statements": 100, "errors": 0, "latency_ms": {"p50": 0.7}},  # no mean: median, 0.7x: improved
        {"id": "qd", "statements": 100, "errors": 2, "latency_ms": {"mean": 0.1}},
        {"id": "qe", "statements": 100, "errors": 0, "latency_ms": {"mean": 1.0}},
        {"id": "qf", "statements": 100, "errors": 0, "latency_ms": {"mean": 1.0}},
        {"id": "qg", "statements": 100, "errors": 0, "latency_ms": {"mean": 5.0}, "captured_duration_ms": {"avg": 4.5}},
        {"id": "qh", "statements": 100, "errors": 0, "latency_ms": {"mean": 5.0, "p95": 30.0},
         "captured_duration_ms": {"avg": 4.0, "p95": 12.0}},  # Extended Events kept every duration
    ]
    results = {r.id: r for r in compare.classify(queries, per_query)}
    assert {k: r.category for k, r in results.items()} == {
        "qa": "degraded", "qb": "unchanged", "qc": "improved", "qd": "errors", "qe": "not comparable",
        "qf": "not comparable", "qg": "unchanged", "qh": "unchanged",
    }
    assert results["qh"].why == "mean at the client within 25%; p95 30.0 ms vs 12.0 ms"
    assert results["qg"].why == "mean at the client within 25%"
    assert results["qc"].why == "median at the client 0.700 ms vs 1.00 ms"
    assert results["qf"].why == "fewer than 20 executions (target 100, captured 5)"
    assert results["qg"].captured_ms == 4.5  # the replayed window's own SQL Server figure wins
    assert compare.counts(list(results.values())) == {"degraded": 1, "errors": 1, "improved": 1, "unchanged": 3,
                                                      "not comparable": 2}
    assert [r.category for r in compare.classify(queries, per_query)][:2] == ["degraded", "errors"]


def _table(name: str, status: str = "done", verify: str | None = "equal") -> dict:
    return {"schema": "dbo", "name": name, "status": status, "verify": None if verify is None else {"status": verify}}


def test_tables_that_verify_different_or_did_not_load_make_it_not_ready_and_are_named():
    """Three of eleven tables verified different once gave "Ready with changes": their rows are not the source's."""
    data = {"tables": [_table(f"t{i}") for i in range(8)] + [_table("authors", verify="different"),
            _table("employee", verify="different"), _table("publishers", status="failed", verify=None)]}
    v = decide([f("DA02", "high")], [q("q1")], None, data=data)
    assert v.level == NOT_READY and v.label == "Not ready"
    texts = [r.text for r in v.reasons if r.level == NOT_READY]
    assert "2 of 11 tables differ from SQL Server's after the copy (verify): dbo.authors, dbo.employee" in texts
    assert "1 of 11 tables did not load into the target: dbo.publishers" in texts
    assert decide([], [q("q1")], None, data={"tables": [_table("a"), _table("b")]}).level == READY


def test_tables_not_verified_are_said_without_changing_the_level():
    v = decide([], [q("q1")], None, data={"tables": [_table("a"), _table("b", verify=None)]})
    assert v.level == READY
    assert any(r.level == NOTE and r.text.startswith("1 of 2 tables were not verified") and "dbo.b" in r.text
               for r in v.reasons)


def _answer(qid: str, verdict: str = "same", status: str = "translated", notes: tuple = (), **more) -> dict:
    return {"id": qid, "verdict": verdict, "reason": "r", "translation_status": status,
            "notes": [{"code": c, "message": "m"} for c in notes], **more}


def test_an_answer_that_differs_with_nothing_to_explain_it_is_not_ready():
    answers = {"queries": [_answer("q1"), _answer("q2", "differs", "rewritten", ("QY06",))]}
    v = decide([f("RP09", "high", "query q2")], [q("q1"), q("q2", "rewritten")], None, answers=answers)
    assert v.level == NOT_READY
    assert v.reasons[0].text == ("1 query class answers differently on TiDB than on SQL Server, and nothing explains "
                                 "why (q2)")


@pytest.mark.parametrize("entry", [
    _answer("q2", "differs", "review", ("QY02",)),  # the translation said its meaning may differ
    _answer("q2", "differs", "rewritten", ("QY75",), order_only=True),  # the same rows, text sorted otherwise
])
def test_an_answer_that_differs_for_a_reason_its_translation_names_is_a_change(entry):
    v = decide([f("RP09", "high", "query q2")], [q("q2", entry["translation_status"])], None,
               answers={"queries": [entry]})
    assert v.level == WITH_CHANGES
    assert any(r.text == "1 query class answers differently on TiDB for a reason its translation names"
               for r in v.reasons)
