"""FORMAT with .NET's custom numeric formats of zeros, grouped digits and fixed decimals, on TiDB and MySQL.

The expected texts are .NET's documented ones for the default culture (en-US): `'00000'` writes at least five digits
(a longer number whole, a negative one with its sign first), `'#,##0.00'` groups thousands with commas, `'0.00'` keeps
two decimals without grouping; each rounds half away from zero. The endpoint's FORMAT fails in this build (its locale
is missing: "invalid value for parameter lc_numeric"), so the documented texts stand alone.
https://learn.microsoft.com/dotnet/standard/base-types/custom-numeric-format-strings
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from sqlsrv2tidb.model import Database, Parameter
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.replay.sqltext import to_format_style
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql

CASES = [("00000", "5", "00005"), ("00000", "-5", "-00005"), ("00000", "123456", "123456"), ("00", "2.5", "03"),
         ("00", "-2.5", "-03"), ("#,##0.00", "1234.5", "1,234.50"), ("#,##0.00", "-1234.567", "-1,234.57"),
         ("#,##0", "1234567", "1,234,567"), ("0.00", "0.5", "0.50"), ("0.00", "1234.5", "1234.50"),
         ("0.000", "-9876.54321", "-9876.543")]


@pytest.fixture(scope="module", params=["tidb", "mysql"])
def target(request):
    conn = request.getfixturevalue(request.param).connect()
    yield request.param, conn
    conn.close()


@pytest.mark.parametrize("fmt, value, text", CASES, ids=[f"{f}:{v}" for f, v, _ in CASES])
def test_custom_numeric_formats_write_what_dotnet_writes(target, fmt, value, text):
    engine, conn = target
    result = translate_sql(f"SELECT FORMAT(@v, '{fmt}')", database=Database(), names=NameMap(),
                           parameters=(Parameter("@v", "decimal(18,6)"),), options=Options(target_engine=engine))
    assert result.status == "rewritten" and {n.code for n in result.notes} == {"QY36"}, result.notes
    with conn.cursor() as cur:
        cur.execute(to_format_style(result.target_sql)[0], [Decimal(value)] * len(result.parameters))
        assert cur.fetchone()[0] == text, result.target_sql


def test_a_format_with_a_culture_or_another_pattern_is_unsupported():
    for tsql in ("SELECT FORMAT(1.5, '0.00', 'de-DE')", "SELECT FORMAT(1.5, '#.##')", "SELECT FORMAT(2, 'X4')"):
        result = translate_sql(tsql, database=Database(), names=NameMap(), options=Options())
        assert result.status == "unsupported" and any(n.code == "QY36" for n in result.notes), (tsql, result.notes)
