"""The answers section: what `compare` left in OUT/compare.json, beside the replay's latencies.

Per class: its text (the user's name for it, else the start of its T-SQL), linked to the query's
entry, its verdict (same, same up to ties, differs, error, not comparable), why, and its row counts on
each side; the statements each side ran are shown on demand. Then the first rows that differ, side by
side; then the classes that were not compared and why. A differing class is also a high finding (RP09),
which the summary counts.
"""

from __future__ import annotations

import json
from typing import Any

from . import formatting as fmt
from .links import Anchors, cut_sql, query_label
from .shape import obj, objs, seq
from .viewmodel import AnswerRow, AnswersSection, Cell, Fact, GenericTable

_ORDER = {"differs": 0, "error": 1, "not comparable": 2, "same up to ties": 3, "same": 4}


def compare_fact(doc: dict[str, Any] | None) -> Fact | None:
    """One line for the summary: how many classes answer the same on the target."""
    if not doc:
        return None
    s = obj(doc.get("summary"))
    tied = s.get("same_up_to_ties") or 0
    same = (s.get("same") or 0) + tied
    return Fact("Answers compared", f"{fmt.number(same)} of {fmt.number(s.get('classes'))} read classes answer "
                                    f"the same on {doc.get('target') or 'the target'}"
                                    f"{f' ({fmt.number(tied)} up to ties)' if tied else ''}; "
                                    f"{fmt.number(s.get('differs'))} differ, {fmt.number(s.get('error'))} fail, "
                                    f"{fmt.number(s.get('not_comparable'))} not comparable")


def _shown(values: Any) -> str:
    return json.dumps(values, ensure_ascii=False, default=str) if values is not None else "(no row)"


def build_compare(doc: dict[str, Any] | None, anchors: Anchors) -> AnswersSection | None:
    if not doc:
        return None
    s, settings = obj(doc.get("summary")), obj(doc.get("settings"))
    facts = (Fact("Target", str(doc.get("target") or "—")), Fact("SQL Server", str(obj(doc.get("source")).get("name") or "—")),
             Fact("Classes", f"{fmt.number(s.get('classes'))}: {fmt.number(s.get('same'))} same, "
                             f"{fmt.number(s.get('same_up_to_ties') or 0)} same up to ties, "
                             f"{fmt.number(s.get('differs'))} differ, {fmt.number(s.get('error'))} error, "
                             f"{fmt.number(s.get('not_comparable'))} not comparable; "
                             f"{fmt.number(s.get('left_out'))} left out"),
             Fact("Parameter sets per class", fmt.scalar(settings.get("parameter_sets"))),
             Fact("Statement timeout", f"{fmt.scalar(settings.get('timeout_s'))} s per side"),
             Fact("Time", fmt.seconds(s.get("seconds"))))
    rows, differences = [], []
    queries = sorted(objs(doc.get("queries")), key=lambda q: (_ORDER.get(str(q.get("verdict")), 4), str(q.get("id"))))
    for q in queries:
        qid = str(q.get("id") or "")
        counts = obj(q.get("rows"))
        shown = "—" if not counts else f"{fmt.number(counts.get('sql_server'))} / {fmt.number(counts.get('target'))}"
        verdict = str(q.get("verdict") or "")
        if verdict == "error" and q.get("side"):
            verdict += f" ({str(q['side']).replace('_', ' ')})"
        tsql, cut_a = cut_sql(str(q.get("sql_server_sql") or ""))
        target, cut_b = cut_sql(str(q.get("target_sql") or ""))
        how = tuple(str(q[key]) for key in ("batch", "retried") if q.get(key))
        label = anchors.labels.get(qid) or query_label({"id": qid, "source_sql": q.get("sql_server_sql")})
        rows.append(AnswerRow(qid, anchors.queries.get(qid), label, verdict, str(q.get("reason") or ""), shown,
                              tsql, target, cut_a or cut_b, how))
        for d in objs(q.get("first_differences")):
            position = d.get("position")
            differences.append((Cell(qid), Cell("—" if position is None else fmt.number(position + 1)),
                                Cell(_shown(d.get("sql_server"))), Cell(_shown(d.get("target")))))
    diff = GenericTable("compare-differences", ("Query", "Row", "SQL Server", "Target"), (False, True, False, False),
                        tuple(differences)) if differences else None
    left = tuple((Cell(str(x.get("id"))), Cell(str(x.get("reason") or ""))) for x in seq(doc.get("left_out"))
                 if isinstance(x, dict))
    left_table = GenericTable("compare-left-out", ("Query", "Why not compared"), (False, False), left) if left else None
    return AnswersSection(facts, tuple(rows), diff, left_table)
