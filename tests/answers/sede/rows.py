"""Seeded, realistic rows for the Stack Exchange Data Explorer schema (schema.sql), and their loader.

`generate(scale, seed)` makes every table's rows in pure Python: the same seed and scale give the same
rows, byte for byte (`SedeRows.digest`). At scale 1 they are about 56,000 rows; the *Types tables hold
the site's own fixed lists at every scale, and what the corpus queries look for (sede_literals) is
always there. `load(connection, database, ...)` creates the database on a SQL Server (or the test
endpoint), runs schema.sql and inserts the rows as multi-row INSERTs (tests/tds_insert.py).

By hand, into any SQL Server whose login may create databases (tests/answers/README.md):

    python3 tests/answers/sede/rows.py --connection 'DRIVER={FreeTDS};SERVER=host;PORT=1433;UID=u;PWD=p;TDS_Version=7.4' \\
        --database sede [--scale 1] [--seed 1]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
for _folder in (HERE, HERE.parents[1]):  # this folder and tests/ (tds_insert), when run as a script
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

from sede_activity import badge_rows, comment_rows, history_rows, link_rows, reputation, vote_rows  # noqa: E402
from sede_lists import (  # noqa: E402
    CLOSE_REASON_TYPES,
    FLAG_TYPES,
    POST_HISTORY_TYPES,
    POST_NOTICE_TYPES,
    POST_TYPES,
    REVIEW_REJECTION_REASONS,
    REVIEW_TASK_RESULT_TYPES,
    REVIEW_TASK_STATES,
    REVIEW_TASK_TYPES,
    TAGS,
    VOTE_TYPES,
)
from sede_literals import query_literals  # noqa: E402
from sede_people import location_pool, make_users, user_rows  # noqa: E402
from sede_posts import add_deleted, add_wikis, make_posts, post_row, tag_rows  # noqa: E402
from sede_review import (  # noqa: E402
    feedback_rows,
    flag_rows,
    notice_rows,
    off_topic_rows,
    review_rows,
    suggested_edit_rows,
    synonym_rows,
)
from sede_schema import batches, table_columns  # noqa: E402
from tds_insert import BATCH, insert_rows  # noqa: E402

SIZES = {"users": 1900, "questions": 2300, "suggested_edits": 350, "review_tasks": 500, "pending_flags": 150,
         "feedback": 400, "notices": 100}
"""Counts at scale 1; the other tables follow from these (answers per question, comments per post, ...)."""
DELETED_SHARE = 0.06
"""Posts in PostsWithDeleted that Posts no longer has, as a share of Posts."""


@dataclass(frozen=True)
class SedeRows:
    """Each table's rows, as tuples in schema.sql's column order."""

    tables: dict[str, list[tuple]]

    @property
    def counts(self) -> dict[str, int]:
        return {name: len(rows) for name, rows in self.tables.items()}

    def column(self, table: str, name: str) -> list:
        at = [c for c, _ in table_columns()[table]].index(name)
        return [row[at] for row in self.tables[table]]

    def digest(self) -> str:
        """A hash of every row's text: equal digests, equal rows."""
        h = hashlib.sha256()
        for name, rows in self.tables.items():
            h.update(name.encode())
            for row in rows:
                h.update(repr(row).encode())
        return h.hexdigest()


def _tuples(table: str, rows: list[dict]) -> list[tuple]:
    """Rows as tuples in the table's column order; a key that is no column of the table is a generator bug."""
    columns = [c for c, _ in table_columns()[table]]
    known = set(columns)
    for row in rows[:1]:
        unknown = set(row) - known
        if unknown:
            raise KeyError(f"{table} has no column {sorted(unknown)}")
    return [tuple(row.get(c) for c in columns) for row in rows]


def generate(scale: float = 1.0, seed: int = 1) -> SedeRows:
    """Every SEDE table's rows at `scale` (1: about 56,000 rows) from `seed`."""
    sized = {k: max(1, round(v * scale)) for k, v in SIZES.items()}
    literals = query_literals()
    tag_names = list(dict.fromkeys([*TAGS, *literals.tags]))
    people = make_users(seed, max(sized["users"], 50), literals.user_ids, literals.display_names)
    site = make_posts(seed, max(sized["questions"], 60), people, literals.post_ids, tag_names, literals.phrases)
    wikis = add_wikis(seed, site, people, tag_names)
    comments = comment_rows(seed, site, people, literals.phrases)
    votes = vote_rows(seed, site, people)
    ends = reputation(site, people, seed)
    badges = badge_rows(seed, people)
    history = history_rows(seed, site, people)
    links = link_rows(seed, site)
    tags, post_tags = tag_rows(seed, site, tag_names, literals.tag_ids, wikis)
    edits, edit_votes = suggested_edit_rows(seed, site, people, sized["suggested_edits"])
    tasks, results = review_rows(seed, site, edits, sized["review_tasks"])
    posts = [post_row(p) for p in site.posts.values()]
    add_deleted(seed, site, DELETED_SHARE)
    with_deleted = sorted(posts + [post_row(p) for p in site.deleted.values()], key=lambda r: r["Id"])
    rows = {
        "Badges": badges, "CloseAsOffTopicReasonTypes": off_topic_rows(seed, people),
        "CloseReasonTypes": [dict(zip(("Id", "Name", "Description"), r, strict=True)) for r in CLOSE_REASON_TYPES],
        "Comments": comments,
        "FlagTypes": [dict(zip(("Id", "Name", "Description"), r, strict=True)) for r in FLAG_TYPES],
        "PendingFlags": flag_rows(seed, site, sized["pending_flags"]),
        "PostFeedback": feedback_rows(seed, site, sized["feedback"]),
        "PostHistory": history,
        "PostHistoryTypes": [{"Id": i, "Name": n} for i, n in POST_HISTORY_TYPES],
        "PostLinks": links,
        "PostNotices": notice_rows(seed, site, people, sized["notices"]),
        "PostNoticeTypes": [dict(zip(("Id", "ClassId", "Name", "Body", "IsHidden", "Predefined", "PostNoticeDurationId"),
                                     r, strict=True)) for r in POST_NOTICE_TYPES],
        "Posts": posts, "PostsWithDeleted": with_deleted, "PostTags": post_tags,
        "PostTypes": [{"Id": i, "Name": n} for i, n in POST_TYPES],
        "ReviewRejectionReasons": [dict(zip(("Id", "Name", "Description", "PostTypeId"), r, strict=True))
                                   for r in REVIEW_REJECTION_REASONS],
        "ReviewTaskResults": results,
        "ReviewTaskResultTypes": [dict(zip(("Id", "Name", "Description"), r, strict=True))
                                  for r in REVIEW_TASK_RESULT_TYPES],
        "ReviewTasks": tasks,
        "ReviewTaskStates": [dict(zip(("Id", "Name", "Description"), r, strict=True)) for r in REVIEW_TASK_STATES],
        "ReviewTaskTypes": [dict(zip(("Id", "Name", "Description"), r, strict=True)) for r in REVIEW_TASK_TYPES],
        "SuggestedEdits": edits, "SuggestedEditVotes": edit_votes, "Tags": tags,
        "TagSynonyms": synonym_rows(seed, people, tag_names),
        "Users": user_rows(people, seed, location_pool(literals.locations), ends),
        "Votes": votes, "VoteTypes": [{"Id": i, "Name": n} for i, n in VOTE_TYPES],
    }
    return SedeRows({table: _tuples(table, rows[table]) for table in table_columns()})


def _with_database(connection: str, database: str) -> str:
    parts = [p for p in connection.split(";") if p and not p.strip().upper().startswith("DATABASE=")]
    return ";".join([*parts, f"DATABASE={database}"])


class LoadRefused(Exception):
    """The load cannot go on: the database exists already, or the server refused a statement."""


def load(connection: str, database: str, rows: SedeRows, *, create: bool = True, batch: int = BATCH) -> dict[str, float]:
    """Create `database` (unless `create` is false: the caller made it, empty), run schema.sql and insert `rows`.
    Returns the seconds each step took ("schema", then each table)."""
    import pyodbc

    if create:
        conn = pyodbc.connect(_with_database(connection, "master"), autocommit=True)
        try:
            if conn.cursor().execute("SELECT DB_ID(?)", database).fetchone()[0] is not None:
                raise LoadRefused(f"database {database} already exists; name a new one")
            conn.cursor().execute(f"CREATE DATABASE [{database}]")
        finally:
            conn.close()
    seconds: dict[str, float] = {}
    conn = pyodbc.connect(_with_database(connection, database), autocommit=True)
    try:
        cursor = conn.cursor()
        started = time.perf_counter()
        for sql in batches():
            cursor.execute(sql)
        seconds["schema"] = time.perf_counter() - started
        for table, columns in table_columns().items():
            started = time.perf_counter()
            insert_rows(cursor, f"dbo.{table}", columns, rows.tables[table], batch=batch)
            seconds[table] = time.perf_counter() - started
    except (pyodbc.Error, RuntimeError) as exc:
        raise LoadRefused(f"{exc} (database {database} is left as it is)") from exc
    finally:
        conn.close()
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Load seeded Stack Exchange (SEDE) rows into a new SQL Server database.")
    parser.add_argument("--connection", required=True, help="ODBC connection string of a login that may create databases")
    parser.add_argument("--database", required=True, help="the database to create (it must not exist)")
    parser.add_argument("--scale", type=float, default=1.0, help="1 makes about 56,000 rows")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=BATCH, help=f"rows per INSERT (at most {BATCH})")
    args = parser.parse_args(argv)
    if not 1 <= args.batch <= BATCH:
        parser.error(f"--batch must be 1 to {BATCH}")
    started = time.perf_counter()
    rows = generate(args.scale, args.seed)
    made = time.perf_counter() - started
    try:
        seconds = load(args.connection, args.database, rows, batch=args.batch)
    except LoadRefused as exc:
        print(f"Error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - the connection refused: one line, not a traceback
        print(f"Error: cannot load into {args.database}: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    for table, count in rows.counts.items():
        print(f"{table:28} {count:7,} rows  {seconds[table]:6.2f} s")
    print(f"{'total':28} {sum(rows.counts.values()):7,} rows  {sum(seconds.values()):6.2f} s to load "
          f"({made:.1f} s to generate), database {args.database}, digest {rows.digest()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
