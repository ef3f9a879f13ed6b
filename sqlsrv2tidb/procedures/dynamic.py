"""SQL a procedure builds at run time (`EXEC (@sql)`, `sp_executesql @sql, N'@p int', @p = @x`), translated when it runs.

The string is the runner's value like any other: QUOTENAME, REPLACE, CONCAT and `+` are worked out on
the client (`client_functions`), so when the call reaches `EXEC (@sql)` the runner has the text. It reads
and translates that text as a batch of its own (its declared parameters bound from the call's
arguments, OUTPUT ones passed back), once per text and declaration, and runs it in the procedure's
session, as SQL Server runs dynamic SQL: in a scope of its own that sees the procedure's temporary
tables but not its variables. What the text holds is known only when it runs, so what it changes is
too: a procedure with dynamic SQL is counted as one that writes (compare leaves it out), and a text the
translator cannot write for TiDB is the call's error, with the reason, where it runs.
https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-executesql-transact-sql
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Database
from ..options import Options
from ..translate.naming import NameMap
from ..tsql.fingerprint import parse_declarations
from . import program as p
from .dynamic_text import output_names


@dataclass
class DynamicSql:
    """Translates the text of dynamic SQL when a call reaches it, once per (text, declarations): a schema's names and
    the translator's options, as plain data, so replay's worker processes carry it with a call's programs."""

    database: Database
    names: NameMap
    options: Options
    _programs: dict[tuple[str, str], p.Program] = field(default_factory=dict, repr=False)

    def program(self, text: str, declarations: str | None) -> p.Program:
        key = (text, declarations or "")
        found = self._programs.get(key)
        if found is None:
            from .compiler import compile_batch

            declared = parse_declarations(declarations) if declarations else ()
            found = compile_batch(text, declared, self.database, self.names, self.options, name="dynamic SQL",
                                  outputs=output_names(declarations or ""))
            if len(self._programs) > 10_000:
                self._programs.clear()  # a text built with values in it is new every time: keep the cache bounded
            self._programs[key] = found
        return found
