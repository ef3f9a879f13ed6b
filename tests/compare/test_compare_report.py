"""compare.json on the page: `report` renders its section beside the replay's, the summary counts a differing
class as the high finding (RP09) it is, linked to its query, and the copy to share withholds the rows."""

from __future__ import annotations

import json
import re

from compare_helpers import workload_file
from test_planted_fixtures import PLANTED, planted_on

from sqlsrv2tidb import api
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.target import parse_target


def test_the_report_shows_the_answers_and_counts_a_difference_as_high(mssql, planted_tds, tidb, tmp_path):
    division = (PLANTED / "queries" / "integer_division.sql").read_text(encoding="utf-8")
    lengths = (PLANTED / "queries" / "len_trailing_spaces.sql").read_text(encoding="utf-8")
    sources = [PLANTED / "schema.sql", workload_file([division, lengths], tmp_path / "queries.sql")]
    out = tmp_path / "out"
    options = Options(skip_rewrites=frozenset({"integer_division"}))
    api.run_translate(sources, out, options)
    outcome = api.run_compare(sources, out, options, login=api.SourceLogin(mssql.connection_string(planted_tds)),
                              target=parse_target(tidb.url(planted_on(tidb, True))))
    doc = json.loads((out / "compare.json").read_text(encoding="utf-8"))
    verdicts = sorted(q["verdict"] for q in doc["queries"])
    assert verdicts == ["differs", "same"], doc["queries"]
    differing = next(q for q in doc["queries"] if q["verdict"] == "differs")
    assert [(f.rule, f.severity.value, f.object) for f in outcome.findings] == [("RP09", "high", f"query {differing['id']}")]

    page = api.render_report(out).read_text(encoding="utf-8")
    assert 'id="compare"' in page and "Answers on SQL Server and the target" in page
    anchor = re.search(rf'<a href="#(q-{differing["id"]}[^"]*)">', page)
    assert anchor and f'id="{anchor[1]}"' in page, "the differing class links to its query's entry"
    summary = page[page.index('id="summary"'):page.index('id="schema"')]
    assert "RP09" in summary and "Answers compared" in summary
    listed = page[page.index('id="findings-high"'):]
    listed = listed[:listed.index("</table>")]
    assert "RP09" in listed and f'href="#{anchor[1]}"' in listed, "the finding is listed, linked to its query"

    shared = api.render_report(out, anonymize=True).parent
    hidden = (shared / "compare.json").read_text(encoding="utf-8")
    for original in ("visits", "boxes", "qty", "Paris", differing["id"]):
        assert original not in hidden, original
    assert json.loads(hidden)["queries"][0]["first_differences"][0]["target"][0] == "(withheld)"
    assert 'id="compare"' in (shared / "report.html").read_text(encoding="utf-8")
