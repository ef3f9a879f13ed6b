"""The answers run: every query a corpus holds, compared on the SQL Server endpoint and on a target over the
same rows, and each verdict put in a class (`benchmarks/translate/ANSWERS.md`).

For each corpus the rows are on the endpoint (a session fixture), `sqlsrv2tidb data copy --create-tables`
puts them on the target, the corpus's queries become a capture's query classes and `sqlsrv2tidb compare`
judges each. Its compare.json is then tallied:

- **same**, and how many of those returned rows (an empty answer proves less), and **same up to ties**;
- **differs**, explained or not. A difference is explained when the translation says its meaning may
  differ (status review, with notes), when the class reads a view whose translation says so (QY65), or
  when it comes from a rewrite whose answer the endpoint departs from SQL Server's documented one
  (departures.py: the meaning test pins SQL Server's answer for each on TiDB, docs/babelfish.md lists
  them), in the class's own translation or a view's it reads, when the rows are the same in another
  order and the translation notes that text sorts otherwise (QY75), or when MariaDB presents a value
  otherwise than TiDB and MySQL (`MARIADB_PRESENTS`);
- **errors** by side: SQL Server's only (the endpoint refuses or fails what the target runs), the target's
  only, both. A target-side error is put in a class as the execution check puts them (tests/translate/execution.py):
  a gap of MariaDB's that TiDB does not have is named, a timeout is a timeout, MySQL refusing a string as a date
  that the translation noted SQL Server cannot read either (QY59; the endpoint answers it) is named; any other
  is a translation defect, which the test fails on;
- **not comparable**, by reason; **left out** (writes, control flow, ...), by reason.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from sqlsrv2tidb.model import Database

TESTS = Path(__file__).resolve().parents[1]
for _folder in (TESTS / "translate", TESTS / "data", TESTS / "compare", TESTS):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

from compare_helpers import compare  # noqa: E402
from data_helpers import copy_args, loaded  # noqa: E402
from departures import ENDPOINT_DEPARTURES  # noqa: E402

from sqlsrv2tidb import api  # noqa: E402
from sqlsrv2tidb.model import Capture, QueryClass, Workload, save_capture  # noqa: E402
from sqlsrv2tidb.tsql.fingerprint import fingerprint, query_id, statement_kind  # noqa: E402

ROOT = TESTS.parent
RECORD = ROOT / "benchmarks" / "translate" / "ANSWERS.md"
COMMAND = ("UPDATE_ANSWERS=1 PYTHONPATH=$PWD python3 -m pytest -q -p no:cacheprovider -m answers "
           "tests/answers/test_answers.py")

@dataclass(frozen=True)
class Query:
    """One statement of a corpus, as the capture's query class gets it."""

    label: str
    sql: str
    parameters: tuple = ()


def capture_with(source_capture: Path | Capture, queries: list[Query], folder: Path) -> tuple[Path, dict[str, list[str]]]:
    """The source's catalog with `queries` as its workload, saved in `folder`; and each class id's query labels."""
    capture = api.read([source_capture]) if isinstance(source_capture, Path) else source_capture
    classes: dict[str, QueryClass] = {}
    labels: dict[str, list[str]] = {}
    for q in queries:
        fp = fingerprint(q.sql)
        qid = query_id(fp)
        classes.setdefault(qid, QueryClass(qid, fp, q.sql, kind=statement_kind(q.sql), parameters=tuple(q.parameters),
                                           name=q.label))
        labels.setdefault(qid, []).append(q.label)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "capture.json"
    save_capture(replace(capture, workload=Workload(queries=tuple(classes.values()))), path)
    return path, labels


def run(source, queries: list[Query], target, database: str, folder: Path, timeout: float = 20) -> dict:
    """Copy `source` (a data_helpers.SourceDb) into `database` on `target`, compare `queries`; compare.json."""
    copied = loaded(*copy_args(source, target, database, folder / "data", "--create-tables"))
    capture, _ = capture_with(source.capture, queries, folder)
    doc = compare([capture], folder / "out", source.connection, target.url(database), "--parameter-sets", "2",
                  "--statement-timeout", f"{timeout:g}", "--allow-writes", "--confirm-database", database)
    doc["_views_not_created"] = copied["views"]["not_created"]
    return doc


# The tally ------------------------------------------------------------------------------------------------


@dataclass
class Tally:
    corpus: str
    target: str
    compared: int = 0
    same: int = 0
    same_with_rows: int = 0
    up_to_ties: int = 0
    explained: int = 0
    unexplained: list[str] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    target_errors: Counter = field(default_factory=Counter)
    """The target's own errors by class (a translation defect, a MariaDB gap, a timeout)."""
    defects: list[str] = field(default_factory=list)
    not_comparable: Counter = field(default_factory=Counter)
    left_out: Counter = field(default_factory=Counter)
    explanations: Counter = field(default_factory=Counter)
    writes: Tally | None = None
    """The write classes, compared by their effect on the rows (`compare --allow-writes`), tallied alike."""

    @property
    def differs(self) -> int:
        return self.explained + len(self.unexplained)


MARIADB_PRESENTS = {re.compile(r"\b(STDEVP?|VARP?)\s*\(", re.I): "MariaDB sends STDDEV and VARIANCE of integers "
                    "rounded to 4 places (TiDB and MySQL send the whole double)"}
"""Values MariaDB's protocol presents otherwise than TiDB and MySQL, by the T-SQL construct that computes them."""


def tally(corpus: str, target_kind: str, doc: dict, departing_views: set[str] = frozenset(),
          known: dict[str, str] | None = None, model: Database | None = None) -> Tally:
    """Classify every class of a compare.json (module docstring); `known` gives, by class id, why a class
    differs that a test already pins (the golden pairs' pins in the meaning test)."""
    out = Tally(corpus, target_kind)
    out.writes = Tally(corpus, target_kind)
    known = known or {}
    through_views = {f["object"] for f in doc.get("findings", []) if f["rule"] == "QY65"}
    reads = out
    for q in doc["queries"]:
        out = reads.writes if q.get("write") else reads
        out.compared += 1
        verdict = q["verdict"]
        if verdict == "same":
            out.same += 1
            out.same_with_rows += bool((q.get("rows") or {}).get("sql_server"))
        elif verdict == "same up to ties":
            out.up_to_ties += 1
        elif verdict == "differs":
            why = known.get(q["id"]) or explanation(q, through_views, departing_views, target_kind) or \
                (catalog_departure(q, model) if model is not None and q.get("write") else None)
            if why is None:
                out.unexplained.append(f"{q['id']} [{q['translation_status']}] {q['reason'][:300]} :: "
                                       f"{' '.join(q['sql_server_sql'].split())[:300]}")
            else:
                out.explained += 1
                out.explanations[why] += 1
        elif verdict == "error":
            side = q.get("side") or "?"
            out.errors[side] += 1
            if side == "target":
                kind = target_error(q, target_kind)
                out.target_errors[kind] += 1
                if kind == "translation defect":
                    out.defects.append(f"{q['id']}: {q['reason'][:300]} :: {' '.join((q.get('target_sql') or '').split())[:300]}")
        else:
            out.not_comparable[_reason_class(q["reason"])] += 1
    for item in doc.get("left_out", []):
        reason = item.get("reason", "") if isinstance(item, dict) else str(item)
        (reads.writes if _a_write(reason) else reads).left_out[_reason_class(reason)] += 1
    return reads


def _a_write(reason: str) -> bool:
    """A class left out of the writes' comparison (not a read left out)."""
    return reason.startswith(("a write the procedure runner cannot run", "it cannot run in a transaction",
                              "a schema change"))


def explanation(q: dict, through_views: set[str], departing_views: set[str], target_kind: str = "tidb") -> str | None:
    """Why a differing class differs, when its translation or a view it reads says so; None otherwise. The
    most particular cause is named first: the order of text, a departure of the endpoint's, a value MariaDB
    presents otherwise, a review note of the class's own, one of a view it reads."""
    codes = {n["code"] for n in q.get("notes", [])}
    if "QY75" in codes and (q.get("order_only") or _only_text_differs(q)):
        return "text sorts otherwise under TiDB's collation (QY75): " + (
            "the same rows in another order" if q.get("order_only") else "MIN or MAX of text picks another value")
    if q.get("write") and _refused_by_endpoint_only(q):
        return "the endpoint refuses a write SQL Server runs: " + ENDPOINT_WRITES[_refused_by_endpoint_only(q)]
    departed = sorted(codes & ENDPOINT_DEPARTURES.keys())
    if departed:
        return "the endpoint departs from SQL Server's answer: " + "; ".join(ENDPOINT_DEPARTURES[c] for c in departed)
    if target_kind == "mariadb" and _utf16_helper(q) and "Unknown column" in q["reason"]:
        return f"it runs on TiDB, not on MariaDB: {_OUTER_IN_CTE}"
    if target_kind == "mariadb":
        for construct, why in MARIADB_PRESENTS.items():
            if construct.search(q["sql_server_sql"]):
                return why
    if q["translation_status"] == "review" and q.get("notes"):
        return "the translation says review: " + ", ".join(sorted(n["code"] for n in q["notes"] if n["code"]))
    if f"query {q['id']}" in through_views:
        return "it reads a view whose translation says review (QY65)"
    text = q["sql_server_sql"].casefold()
    if any(view in text for view in departing_views):
        return "it reads a view whose rewrite the endpoint answers otherwise than SQL Server"
    return None


ENDPOINT_WRITES: dict[str, str] = {
    r"is not currently supported in Babelfish": "it uses a construct Babelfish does not support (hierarchyid, say), so "
                                                "the endpoint cannot say what SQL Server does (docs/babelfish.md)",
    r'syntax error at or near "[-+*/]="': "Babelfish does not read compound assignment (SET x += y) in an UPDATE, which "
                                          "SQL Server runs (docs/babelfish.md)",
    r"function \S+\(.*\) does not exist": "it calls a function Babelfish lacks (COMPRESS, say; docs/babelfish.md)",
}
"""What the endpoint refuses that SQL Server runs, by a pattern of its message (docs/babelfish.md)."""


def _refused_by_endpoint_only(q: dict) -> str | None:
    """The pattern of ENDPOINT_WRITES the endpoint's refusal of a write matches (what the target did then cannot be
    judged: SQL Server would have run it), or None."""
    refused = q.get("refused") or {}
    if not refused.get("sql_server"):
        return None
    said = refused["sql_server"][0]
    return next((p for p in ENDPOINT_WRITES if re.search(p, said, re.I)), None)


_NO_DEFAULT = re.compile(r"Field '([^']+)' doesn't have a default value", re.I)


def catalog_departure(q: dict, model: Database) -> str | None:
    """Why a write differs when the target's tables were made from the endpoint's catalog, which reports some objects
    otherwise than the schema's script does (`model`: the corpus's schema as its script defines it; docs/babelfish.md):
    a column whose default draws from a sequence its sys.sequences does not list, a computed column its
    sys.computed_columns reports as a plain one (IN22)."""
    refused = q.get("refused") or {}
    for said in refused.get("target") or ():
        missing = _NO_DEFAULT.search(said)
        if missing and _sequence_default(model, missing[1]):
            return ("a column whose default draws from a sequence the endpoint's catalog does not list (Babelfish's "
                    "sys.sequences is empty): the target's table was made without that default")
    ends = [e for e in q.get("end_state") or () if not e.get("equal")]
    if ends and not refused.get("target") and not refused.get("sql_server") and all(
            e.get("differing_columns") and all(_computed(model, e["table"], c) for c in e["differing_columns"]) for e in ends):
        return "a computed column the endpoint's catalog reports as a plain one (IN22): the target's is no generated column"
    return None


def _sequence_default(model: Database, column: str) -> bool:
    return any(c.name.casefold() == column.casefold() and c.default and "NEXT VALUE FOR" in c.default.upper()
               for t in model.tables for c in t.columns)


def _computed(model: Database, table: str, column: str) -> bool:
    schema, _, name = table.rpartition(".")
    found = model.table(schema or None, name)
    col = found.column(column) if found is not None else None
    return col is not None and col.computed is not None


def _only_text_differs(q: dict) -> bool:
    """Every differing row pair the class shows differs in text values alone (its numbers and dates agree)."""
    pairs = q.get("first_differences") or []
    for pair in pairs:
        left, right = pair.get("sql_server"), pair.get("target")
        if left is None or right is None or len(left) != len(right):
            return False
        if any(a != b and not (isinstance(a, str) and isinstance(b, str)) for a, b in zip(left, right, strict=True)):
            return False
    return bool(pairs)


_MARIADB_GAPS = ((1305, "a function MariaDB lacks"), (1235, "a feature MariaDB lacks (LIMIT in a subquery)"),
                 (1221, "WITH ROLLUP with ORDER BY"), (1064, "syntax MariaDB lacks"),
                 (1055, "ONLY_FULL_GROUP_BY matching columns only"))


_UTF16_HELPER = "sqlsrv2tidb_u"
"""The recursive CTE that builds an nvarchar's UTF-16LE bytes for HASHBYTES (translate/transforms_hashing.py)."""
_OUTER_IN_CTE = ("an outer query's column inside a recursive CTE (the UTF-16LE bytes HASHBYTES hashes), which TiDB "
                 "and MySQL read and MariaDB does not")


def _utf16_helper(q: dict) -> bool:
    """Whether the class's translation builds an nvarchar's UTF-16LE bytes (its target text, or for a write run by
    the procedure runner, whose text compare.json does not hold, its note)."""
    return _UTF16_HELPER in (q.get("target_sql") or "") or any(
        n.get("code") == "QY36" and "UTF-16LE" in n.get("message", "") for n in q.get("notes", []))


_MISSING_OBJECT = re.compile(r"Unknown SEQUENCE: '(?:[^'.]*\.)?([^']*)'|Table '(?:[^'.]*\.)?([^']*)' doesn't exist")


def _hidden_sequence(reason: str, tsql: str) -> bool:
    """A target error on a sequence the class draws from (NEXT VALUE FOR) and the target lacks: the live capture
    had none to create, since Babelfish's sys.sequences lists none (docs/babelfish.md)."""
    missing = _MISSING_OBJECT.search(reason)
    name = (missing[1] or missing[2]) if missing else None
    return bool(name) and re.search(rf"NEXT\s+VALUE\s+FOR\s+(?:[\w\[\]\"]+\.)?[\[\"]?{re.escape(name)}\b", tsql, re.I) is not None


def target_error(q: dict, target_kind: str) -> str:
    """The class of a target-only error: a timeout, an object the endpoint's catalog hides, a gap of MariaDB's,
    else a translation defect."""
    reason = q.get("reason", "")
    if q.get("timed_out") or "statement timeout" in reason:
        return "timeout"
    if _hidden_sequence(reason, q.get("sql_server_sql", "")):
        return "a sequence the endpoint's catalog does not list (Babelfish's sys.sequences is empty)"
    code = re.search(r"MySQL error (\d+)", reason)
    if target_kind == "mysql" and code is not None and int(code[1]) == 1525 and any(
            n.get("code") == "QY59" and "cannot read" in n.get("message", "") for n in q.get("notes", [])):
        return "a string SQL Server cannot read as a date either (QY59): MySQL refuses it as SQL Server does"
    if target_kind == "mariadb" and code is not None and int(code[1]) == 1054 and _utf16_helper(q):
        return f"runs on TiDB, not on MariaDB: {_OUTER_IN_CTE}"
    if target_kind == "mariadb" and code is not None:
        for number, label in _MARIADB_GAPS:
            if int(code[1]) == number:
                return f"runs on TiDB, not on MariaDB: {label}"
    return "translation defect"


def _reason_class(reason: str) -> str:
    """A reason without its particulars (names, numbers), so reasons of one kind count together."""
    text = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"|@\w+|\d+", "…", reason.split(";")[0].split(":")[0]).strip()
    return text[:120] or "(no reason)"


# The record -----------------------------------------------------------------------------------------------


def render(tallies: list[Tally], seeds: str) -> str:
    lines = [
        "# Answers proven on data",
        "",
        "Every query of the development corpora is compared by `sqlsrv2tidb compare` on the SQL Server endpoint",
        "(Babelfish, tests/conftest.py) and on a target holding the same rows (`data copy --create-tables`):",
        "TiDB v8.5.3, MariaDB, and MySQL 9.7 with the DDL and the translation written for it (`data copy` and",
        "`compare` read the engine from the server). Rows: the corpus scripts' own (Northwind), the golden rows, and generated",
        f"ones (tests/answers/README.md: {seeds}). How each verdict is classed: tests/answers/answers_run.py.",
        "",
        "Regenerate (needs the shared servers or SQLSRV2TIDB_TEST_TIDB / SQLSRV2TIDB_TEST_MYSQL / SQLSRV2TIDB_TEST_MSSQL):",
        "",
        f"    {COMMAND}",
        "",
        "| corpus | target | compared | same | of which with rows | same up to ties | differs, explained | differs, unexplained | errors: SQL Server only | errors: target only | errors: both | not comparable | left out |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for t in tallies:
        lines.append(f"| {t.corpus} | {t.target} | {t.compared} | {t.same} | {t.same_with_rows} | {t.up_to_ties} | "
                     f"{t.explained} | {len(t.unexplained)} | {t.errors['sql_server']} | {t.errors['target']} | "
                     f"{t.errors['both']} | {sum(t.not_comparable.values())} | {sum(t.left_out.values())} |")
    lines += ["", "## Writes compared by their effect on the rows", "",
              "Every INSERT, UPDATE, DELETE and MERGE of the corpora's modules, run with `--allow-writes` on both servers "
              "from the same rows, each in a transaction rolled back (docs/compare.md, *Writes*): refused alike or not, "
              "the rows each statement affected, the result sets, and the rows it left in every table it touched.",
              "",
              "| corpus | target | compared | same | differs, explained | differs, unexplained | errors: SQL Server only | errors: target only | errors: both | not comparable | left out |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for t in tallies:
        w = t.writes or Tally(t.corpus, t.target)
        lines.append(f"| {t.corpus} | {t.target} | {w.compared} | {w.same + w.up_to_ties} | {w.explained} | "
                     f"{len(w.unexplained)} | {w.errors['sql_server']} | {w.errors['target']} | {w.errors['both']} | "
                     f"{sum(w.not_comparable.values())} | {sum(w.left_out.values())} |")
    for title, attribute in (("Why the differing classes differ", "explanations"),
                             ("What the target-only errors are", "target_errors"),
                             ("Why classes are not comparable", "not_comparable"),
                             ("Why classes are left out", "left_out")):
        rows = [(t.corpus, f"{t.target}{' (writes)' if part is t.writes else ''}", reason, n) for t in tallies
                for part in (t, t.writes) if part is not None for reason, n in sorted(getattr(part, attribute).items())]
        if not rows:
            continue
        lines += ["", f"## {title}", "", "| corpus | target | reason | classes |", "|---|---|---|---:|"]
        lines += [f"| {c} | {k} | {r.replace('|', '/')} | {n} |" for c, k, r, n in rows]
    unexplained = [(t.corpus, t.target, u) for t in tallies for part in (t, t.writes) if part is not None
                   for u in part.unexplained + part.defects]
    lines += ["", "## Unexplained differences and translation defects", ""]
    lines += [f"- {c} on {k}: {u.replace('|', '/')}" for c, k, u in unexplained] or ["None."]
    return "\n".join(lines) + "\n"


def save_doc(doc: dict, path: Path) -> None:
    path.write_text(json.dumps(doc, indent=1, default=str), encoding="utf-8")
