"""Where the SQL Server endpoint (Babelfish) answers otherwise than SQL Server's documented answer, by the
translator rewrite whose result it departs from; and the views whose translation carries one.

The meaning test (tests/translate/test_meaning.py, PINS) holds SQL Server's documented answer for each of
these on TiDB, and docs/babelfish.md lists them: a class whose translation carries one of the rewrites,
or that reads a view whose translation does, may differ on this endpoint for the endpoint's reason.
"""

from __future__ import annotations

ENDPOINT_DEPARTURES: dict[str, str] = {
    "QY64": "a real converted to money: SQL Server rounds the single-precision value, Babelfish its shortest "
            "decimal form half to even (golden pair 349)",
    "QY60": "a decimal quotient: SQL Server truncates to the scale its formula gives, Babelfish keeps PostgreSQL's "
            "20 places, rounded (golden pairs 330, 348)",
    "QY66": "AVG of decimal or money: SQL Server truncates to decimal(38, max(s, 6)) or money, Babelfish keeps "
            "PostgreSQL's scale (golden pairs 335, 336)",
    "QY68": "ROUND of an int to a negative length: SQL Server returns the int, Babelfish overflows (golden pair 337)",
    "QY69": "POWER of a decimal: SQL Server returns decimal(38, s), Babelfish a float's digits (golden pair 340)",
    "QY77": "a datetime or money converted to text: SQL Server writes style 0 ('Mar  1 2024 10:59AM', two decimals), "
            "Babelfish an ISO date and four decimals (golden pairs 354, 355)",
    "QY02": "DATEDIFF(week) and DATEDIFF(quarter): SQL Server counts the Sundays (and quarter starts) crossed, "
            "Babelfish Mondays and no quarter boundary (golden pairs 052, 352)",
}


def departing_views(database) -> set[str]:
    """Lower-case names of the views whose translation carries an endpoint departure, and of the views that
    read those, in `database` (a captured schema with its modules)."""
    from sqlsrv2tidb.options import Options
    from sqlsrv2tidb.plan.views import split_view
    from sqlsrv2tidb.translate.naming import NameMap
    from sqlsrv2tidb.translate.queries import translate_sql

    names = NameMap.for_database(database)
    bodies = {}
    for module in database.modules:
        parts = split_view(module.definition) if module.kind == "view" and module.definition else None
        if parts:
            bodies[module.name.casefold()] = parts[1]
    departing = {name for name, body in bodies.items()
                 if ENDPOINT_DEPARTURES.keys() & {n.code for n in translate_sql(body, database=database, names=names,
                                                                                   options=Options()).notes}}
    while True:
        more = {name for name, body in bodies.items() if name not in departing and any(v in body.casefold() for v in departing)}
        if not more:
            return departing
        departing |= more
