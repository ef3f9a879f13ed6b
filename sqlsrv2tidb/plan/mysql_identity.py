"""IDENTITY columns and sequences when the target is MySQL.

- IDENTITY becomes `AUTO_INCREMENT`, the seed its `AUTO_INCREMENT=n` table option. MySQL has no
  per-table step (auto_increment_increment is the session's or the server's) and keeps no cache to
  choose: one InnoDB server hands out the ids (https://dev.mysql.com/doc/refman/8.4/en/innodb-auto-increment-handling.html).
- MySQL has no sequences. `translate/mysql_sequences.py` decides each one's form, the same for the
  DDL and the queries: a sequence that numbers one column becomes that column's AUTO_INCREMENT
  (finding MY01); every other one becomes a one-row table and the statement that draws from it
  (finding MY02), and the columns that drew their default from it have none on MySQL.
"""

from __future__ import annotations

from ..model import Database, Finding, Sequence, Severity, Table
from ..translate.identifiers import object_name
from ..translate.mysql_sequences import SequenceForm, draw_statement, key, mysql_forms
from ..translate.naming import NameMap
from .identity import _TYPE_RANGE, IdentityPlan, SequencePlan


class MySQLIdentityPlanner:
    """What IDENTITY columns and sequences become on MySQL; the same questions as `IdentityPlanner` asks."""

    def __init__(self, database: Database, names: NameMap) -> None:
        self.database = database
        self.names = names
        self.forms = mysql_forms(database)

    def plan_sequences(self) -> tuple[list[SequencePlan], list[Finding]]:
        """A sequence table for each sequence that is not a column's AUTO_INCREMENT; a finding for every sequence."""
        plans, findings = [], []
        for seq in self.database.sequences:
            form = self.forms[key(seq.schema, seq.name)]
            start, minimum, maximum = _bounds(seq)
            if form.kind == "auto_increment":
                findings.append(self._auto_increment_finding(seq, form, start))
                continue
            target = object_name(self.names, seq.schema, seq.name)
            draw = draw_statement(target, seq.increment, minimum, maximum, seq.cycle)
            plan = SequencePlan(seq.schema, seq.name, target, start, seq.increment, minimum, maximum, seq.cycle, None,
                                tuple(sorted(".".join(u.split(".")[:2]) for u in form.users)), rationale=form.why,
                                form="table", draw=draw)
            plans.append(plan)
            findings.append(self._table_finding(seq, form, plan))
        return plans, findings

    def _auto_increment_finding(self, seq: Sequence, form: SequenceForm, start: int) -> Finding:
        assert form.column is not None
        column = ".".join(form.column)
        notes = []
        if seq.increment != 1:
            notes.append(f"its INCREMENT BY {seq.increment} is lost (AUTO_INCREMENT steps by the server's "
                         "auto_increment_increment)")
        if start < 1:
            notes.append(f"it starts at 1 rather than {start} (AUTO_INCREMENT counts from 1)")
        if seq.cycle:
            notes.append("CYCLE is lost: AUTO_INCREMENT fails when the column's type is full")
        where = f" (table option AUTO_INCREMENT={start})" if start > 1 else ""
        return Finding(
            rule="MY01", severity=Severity.LOW if notes else Severity.INFO, object=seq.qualified_name,
            message=f"MySQL has no sequences: {seq.qualified_name} numbers only {column}, so that column becomes "
                    f"AUTO_INCREMENT{where}, and inserts that leave it out keep working"
                    + (f"; {'; '.join(notes)}" if notes else "")
                    + "; code that draws values with NEXT VALUE FOR must insert the row and read LAST_INSERT_ID()",
            file=seq.source.file, line=seq.source.line, details={"column": column, "start": start})

    def _table_finding(self, seq: Sequence, form: SequenceForm, plan: SequencePlan) -> Finding:
        users = list(form.users)
        lost = (f"; the default of {', '.join(users)} is left out, so every insert into "
                f"{'it' if len(users) == 1 else 'them'} must draw a value first") if users else ""
        return Finding(
            rule="MY02", severity=Severity.MEDIUM if users else Severity.LOW, object=seq.qualified_name,
            message=f"MySQL has no sequences, and {seq.qualified_name} cannot be a column's AUTO_INCREMENT ({form.why}): "
                    f"it becomes the one-row table {plan.target} in ddl/01-sequences.sql, drawn with `{plan.draw}; "
                    f"SELECT LAST_INSERT_ID()`{lost}; each draw locks the row until its transaction ends",
            file=seq.source.file, line=seq.source.line,
            details={"table": plan.target, "draw": plan.draw, "used_by": users})

    def plan_identity(self, table: Table) -> IdentityPlan | None:
        """AUTO_INCREMENT for the table's IDENTITY column, or for the column a sequence alone numbers."""
        column = next((c for c in table.columns if c.identity is not None), None)
        if column is not None:
            assert column.identity is not None
            return self._identity(table, column.name, column.identity.seed, column.identity.increment)
        for seq_key, form in self.forms.items():
            if form.kind == "auto_increment" and form.column is not None and \
                    key(form.column[0], form.column[1]) == key(table.schema, table.name):
                seq = next(s for s in self.database.sequences if key(s.schema, s.name) == seq_key)
                start = _bounds(seq)[0]
                return IdentityPlan(form.column[2], "auto_increment", start=start if start > 1 else None,
                                    centralized=False)
        return None

    def _identity(self, table: Table, column: str, seed: int, increment: int) -> IdentityPlan:
        where = f"{table.qualified_name}.{column}"
        found = table.column(column)
        src = found.source if found is not None and found.source.file else table.source
        notes = []
        if increment != 1:
            notes.append(f"new ids step by 1, not {increment}: MySQL's step is auto_increment_increment, a session or "
                         "server setting for every table")
        if seed < 1:
            notes.append(f"new ids start at 1, not {seed}")
        finding = Finding(
            rule="MY03", severity=Severity.MEDIUM if notes else Severity.INFO, object=where,
            message=f"IDENTITY({seed},{increment}) becomes AUTO_INCREMENT"
                    + (f" with AUTO_INCREMENT={seed}" if seed > 1 else "")
                    + (f"; {'; '.join(notes)}" if notes else "; ids stay unique and increasing, as SQL Server's"),
            file=src.file, line=src.line)
        return IdentityPlan(column, "auto_increment", start=seed if seed > 1 else None, centralized=False,
                            findings=(finding,))


def _bounds(seq: Sequence) -> tuple[int, int, int]:
    """(start, minimum, maximum) as SQL Server gives them, its type's range filling in what is left out."""
    low, high = _TYPE_RANGE.get(seq.type.name.casefold(), _TYPE_RANGE["bigint"])
    minimum = seq.minimum if seq.minimum is not None else low
    maximum = seq.maximum if seq.maximum is not None else high
    start = seq.start if seq.start is not None else (minimum if seq.increment > 0 else maximum)
    return start, minimum, maximum
