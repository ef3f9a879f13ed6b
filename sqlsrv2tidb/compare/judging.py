"""Which comparison a class gets: a write's by its effect, a procedure call's by its result sets, a query's by its answer."""

from __future__ import annotations

from ..model import Database
from .calls import compare_call
from .classes import Compared
from .runner import ClassResult, compare_class
from .sides import SqlServerSide, TargetSide
from .write_judge import compare_write


def compare_any(compared: Compared, database: Database, sql_server: SqlServerSide, target: TargetSide) -> ClassResult:
    """A write's comparison (`write_judge`), a procedure call's (`calls.compare_call`), or a query's
    (`runner.compare_class`)."""
    if compared.write:
        return compare_write(compared, database, sql_server, target)
    if compared.call is not None:
        return compare_call(compared, database, sql_server, target)
    return compare_class(compared, database, sql_server, target)
