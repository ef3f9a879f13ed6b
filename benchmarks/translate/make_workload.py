"""A large Query Store export for the translation benchmark: N distinct query classes from the SEDE corpus.

A busy server's Query Store holds tens of thousands of distinct statements, ad-hoc workloads more.
This writes such a capture from the 857 Stack Exchange Data Explorer queries of the test corpus
(real ad-hoc T-SQL against the Stack Overflow schema):

- `schema.sql`: the Stack Overflow tables of `tables_so.json` as CREATE TABLE statements;
- `querystore.csv`: a Query Store export (the columns of the reference query, as the tool reads
  them, `capture.querystore.EXPORT_COLUMNS`), one row per class over one hour, the text stored as
  Query Store stores it, with its `(@P1 int, ...)` parameter prefix.

Variant k of a query gets one more column in its first top-level SELECT, `<k> AS [v<k>]`: a column
alias is a name, so every variant has its own fingerprint (a literal alone would not: fingerprints
replace literals by `?`), and the rest of the statement is translated as the original is.

    python3 benchmarks/translate/make_workload.py --classes 100000 -o benchmarks/.work/qs100k
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "translate"))
sys.path.insert(0, str(ROOT))

from translate_sede import CORPUS, sede_queries  # noqa: E402

from sqlsrv2tidb.capture.querystore import EXPORT_COLUMNS  # noqa: E402
from sqlsrv2tidb.translate.dialect import SqlServer  # noqa: E402
from sqlsrv2tidb.tsql.fingerprint import fingerprint  # noqa: E402

_SO_TYPES = {"number": "int", "text": "nvarchar(4000)", "time": "datetime", "boolean": "bit", "other": "uniqueidentifier"}
_MODIFIERS = {"DISTINCT", "ALL"}


def schema_sql() -> str:
    spec = json.loads((CORPUS / "tables_so.json").read_text(encoding="utf-8"))[0]
    columns: dict[int, list[str]] = {}
    for (table, name), kind in zip(spec["column_names_original"], spec["column_types"], strict=True):
        if table >= 0:
            columns.setdefault(table, []).append(f"    [{name}] {_SO_TYPES[kind]} NULL")
    return "\n".join(f"CREATE TABLE dbo.[{name}] (\n" + ",\n".join(columns.get(i, [])) + "\n);\nGO\n"
                     for i, name in enumerate(spec["table_names_original"]))


def insertion_point(sql: str) -> int | None:
    """Where a first column can go in the first top-level SELECT (after DISTINCT and TOP n), or None."""
    try:
        tokens = SqlServer().tokenize(sql)
    except Exception:  # noqa: BLE001 - a query the tokenizer rejects gets no variants
        return None
    depth = 0
    for i, tok in enumerate(tokens):
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
        elif depth == 0 and tok.text.upper() == "SELECT":
            j = i + 1
            while j < len(tokens) and tokens[j].text.upper() in _MODIFIERS:
                j += 1
            if j < len(tokens) and tokens[j].text.upper() == "TOP":
                j += 1
                if j < len(tokens) and tokens[j].text == "(":
                    while j < len(tokens) and tokens[j].text != ")":
                        j += 1
                j += 1
                while j < len(tokens) and tokens[j].text.upper() in ("PERCENT", "WITH", "TIES"):
                    j += 1
            if j >= len(tokens) or tokens[j].text.startswith("@"):
                continue  # SELECT @x = ...: an assignment, not a result column
            return tokens[j].start
    return None


def variants(count: int) -> list[tuple[str, str]]:
    """`count` (text, fingerprint) pairs of distinct fingerprints, round robin over the SEDE queries."""
    bases = []
    for q in sede_queries():
        at = insertion_point(q.sql)
        if at is not None:
            prefix = "(" + ",".join(f"{p.name} {p.type}" for p in q.parameters) + ")" if q.parameters else ""
            bases.append((prefix, q.sql, at))
    out, seen, k = [], set(), 0
    while len(out) < count:
        prefix, sql, at = bases[k % len(bases)]
        text = f"{prefix}{sql[:at]}{k} AS [v{k}], {sql[at:]}"
        k += 1
        shape = fingerprint(text)
        if shape not in seen:
            seen.add(shape)
            out.append((text, shape))
    return out


def write_export(path: Path, classes: list[tuple[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(EXPORT_COLUMNS)
        for i, (text, _) in enumerate(classes, start=1):
            row = dict.fromkeys(EXPORT_COLUMNS, "NULL")
            row.update(query_id=i, query_text_id=i, plan_id=i, query_sql_text=text, runtime_stats_interval_id=1,
                       interval_start_utc="2026-01-05 09:00:00.0000000", interval_end_utc="2026-01-05 10:00:00.0000000",
                       execution_type=0, count_executions=1 + (i * 7919) % 500, avg_duration_us=1000 + i % 9000,
                       query_parameterization_type=0, query_parameterization_type_desc="None")
            writer.writerow([row[c] for c in EXPORT_COLUMNS])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--classes", type=int, default=100_000)
    parser.add_argument("-o", "--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "schema.sql").write_text(schema_sql(), encoding="utf-8")
    classes = variants(args.classes)
    write_export(args.out / "querystore.csv", classes)
    print(f"{len(classes)} distinct query classes in {args.out / 'querystore.csv'}")


if __name__ == "__main__":
    main()
