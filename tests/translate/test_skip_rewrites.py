"""`Options.skip_rewrites`: each accepted name leaves its rewrite out, and an empty set changes nothing.

Each name must change what the translator gives for at least one golden pair (its TiDB text, or the
status and notes for a rewrite that only flags), so no name is accepted that switches nothing. The
collation switch changes the DDL, not a query. With the set empty the pipeline is the very tuple the
translator always runs; the byte-identical record (test_translation_record) holds the output to that.
"""

from __future__ import annotations

import pytest
from translate_golden import golden_capture, read_cases

from sqlsrv2tidb import api
from sqlsrv2tidb.errors import UsageError
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.translate import transforms
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql
from sqlsrv2tidb.translate.types import CASE_INSENSITIVE_COLLATION, TypeMapper

CASES = read_cases()
QUERY_SWITCHES = [name for name in transforms.SKIPPABLE if name != CASE_INSENSITIVE_COLLATION]


def _translate(source: str, options: Options):
    capture = golden_capture()
    result = translate_sql(source, database=capture.database, names=NameMap.for_database(capture.database), options=options)
    return result.target_sql, result.status, tuple(sorted((n.code, n.message) for n in result.notes))


@pytest.fixture(scope="module")
def baseline():
    return {case.id: _translate(case.source, Options()) for case in CASES}


@pytest.mark.parametrize("name", QUERY_SWITCHES)
def test_each_query_switch_changes_a_golden_translation(name, baseline):
    options = Options(skip_rewrites=frozenset({name}))
    changed = next((case for case in CASES if _translate(case.source, options) != baseline[case.id]), None)
    assert changed is not None, f"skipping {name} changes no golden pair's translation"


@pytest.mark.parametrize("name, source, kept, naive", [
    ("integer_division", "SELECT qty / 2 FROM dbo.orders", "DIV", "qty / 2"),
    ("string_plus", "SELECT first_name + ' ' + last_name FROM dbo.customers", "CONCAT(", "first_name + ' ' + last_name"),
    ("len_trailing_spaces", "SELECT LEN(first_name) FROM dbo.customers", "RTRIM(", "CHAR_LENGTH(first_name)"),
    ("datediff_boundaries", "SELECT DATEDIFF(year, ordered_at, shipped_at) FROM dbo.orders", "YEAR(", "DATEDIFF("),
    ("top_percent_or_ties", "SELECT TOP 2 WITH TIES id FROM dbo.orders ORDER BY qty", "RANK()", "LIMIT 2"),
])
def test_a_planted_meaning_change_is_the_naive_text_without_its_rewrite(name, source, kept, naive):
    with_rewrite = _translate(source, Options())[0]
    without = _translate(source, Options(skip_rewrites=frozenset({name})))[0]
    assert kept in with_rewrite and naive not in with_rewrite, with_rewrite
    assert naive in without and kept not in without, without


def test_the_collation_switch_gives_case_insensitive_columns_tidbs_default():
    with_mapping = "\n".join(f.content for f in api.plan(golden_capture(), Options()).files)
    without = "\n".join(f.content for f in api.plan(golden_capture(), Options(skip_rewrites={CASE_INSENSITIVE_COLLATION})).files)
    assert "utf8mb4_general_ci" in with_mapping and "utf8mb4_general_ci" not in without
    assert without.count("utf8mb4_bin") > with_mapping.count("utf8mb4_bin")
    switched = api.plan(golden_capture(), Options(skip_rewrites={CASE_INSENSITIVE_COLLATION}))
    said = [f.message for f in switched.findings if f.rule == "TY12"]
    assert said and all("switched off" in m and "case-sensitive" in m for m in said), said
    assert TypeMapper(skip_rewrites=frozenset({CASE_INSENSITIVE_COLLATION})).map_collation("Latin1_General_CS_AS").target == "utf8mb4_bin"
    assert TypeMapper().map_collation(None).target == "utf8mb4_general_ci"


def test_an_unknown_name_is_one_line_naming_it_and_the_accepted_ones():
    capture = golden_capture()
    with pytest.raises(UsageError) as raised:
        translate_sql("SELECT 1", database=capture.database, names=NameMap.for_database(capture.database),
                      options=Options(skip_rewrites={"integer_division", "no_such_rewrite"}))
    message = str(raised.value)
    assert "\n" not in message and "'no_such_rewrite'" in message and "integer_division'" not in message
    assert all(name in message for name in transforms.SKIPPABLE)
    with pytest.raises(UsageError, match="no_such_rewrite"):
        api.plan(capture, Options(skip_rewrites={"no_such_rewrite"}))


def test_an_empty_set_runs_the_pipeline_itself(monkeypatch):
    """Nothing skipped: `bottom_up` gets `_PIPELINE` itself (its plans are cached by that tuple), never a copy."""
    seen = []
    real = transforms.bottom_up
    monkeypatch.setattr(transforms, "bottom_up", lambda tree, rewrites, ctx, *rest: seen.append(rewrites) or real(tree, rewrites, ctx, *rest))
    _translate("SELECT qty / 2 FROM dbo.orders", Options(skip_rewrites=frozenset()))
    _translate("SELECT qty / 2 FROM dbo.orders", Options(skip_rewrites={"string_plus"}))
    assert seen[0] is transforms._PIPELINE
    assert len(seen[1]) == len(transforms._PIPELINE) - 1 and transforms.transforms_scalar.string_plus not in seen[1]
