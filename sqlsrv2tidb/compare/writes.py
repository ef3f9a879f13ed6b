"""Which write classes `compare --allow-writes` runs, and with which values.

A class that changes data (an INSERT, UPDATE, DELETE or MERGE, a batch with one among its statements,
an sp_executesql call of one, a call of a procedure that writes) is compared by its effect on the
rows (`write_judge`) once the user said twice that writes may be sent: `--allow-writes` and
`--confirm-database` naming the target's database (`replay.safety`). Every such class runs through
the procedure runner on the target, as a batch the application sends, so a statement, a batch and a
procedure call are run, read and rolled back the same way.

Left out, with the reason: schema changes (TiDB commits DDL at once: it cannot run in a transaction
that is rolled back), a class the runner cannot run (what stops it, and where), and one without T-SQL
text. Values: the captured sets first, as for reads (`classes.value_sets`), the same ones on both sides;
the runner converts each to its parameter's declared T-SQL type before it is sent, as SQL Server does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..model import Capture, QueryClass
from ..model.translation import TranslatedQuery, Translation
from ..procedures.catalog import Procedures
from ..procedures.workload import CapturedCall, captured_call
from ..replay.params import MarkerColumn
from ..tsql.fingerprint import is_write
from .calls import prepare_call
from .classes import Compared, Left, prepare


def choose_writes(capture: Capture, translation: Translation, left: Sequence[Left], procedures: Procedures,
                  calls: dict[str, CapturedCall]) -> tuple[list[tuple[TranslatedQuery, QueryClass, CapturedCall]],
                                                           list[Left]]:
    """Of the classes left out, those that write and can run (each with its batch as the runner runs it); the rest
    stay left out, the writes among them saying why."""
    chosen, still = [], []
    for item in left:
        tq = translation.query(item.id)
        source = capture.workload.query(item.id)
        if tq is None or source is None:
            still.append(item)
            continue
        kind = tq.kind if tq.kind != "other" else source.kind
        if kind == "ddl":
            still.append(Left(item.id, "a schema change: TiDB commits DDL at once, so it cannot run in a transaction "
                                       "that is rolled back; compare leaves it out"))
            continue
        call = calls.get(item.id) or captured_call(source, procedures, batches=True)
        if call is None or not (is_write(kind) or call.writes):
            still.append(item)
            continue
        if not call.runs:
            still.append(Left(item.id, f"a write the procedure runner cannot run: {call.stops}"))
            continue
        chosen.append((tq, source, call))
    return chosen, still


def prepare_write(tq: TranslatedQuery, source: QueryClass, capture: Capture, call: CapturedCall, sets: int, seed: int,
                  pools: Callable[[MarkerColumn], tuple[Any, ...]]) -> Compared:
    """The write with `sets` value sets for its parameters: a procedure call's from the procedures' columns, a
    statement's from its translation's markers (values the target holds for a WHERE's parameters)."""
    if call.procedures:
        compared = prepare_call(tq, source, capture, call, sets, seed, pools)
    else:
        compared = prepare(tq, source, capture, sets, seed, pools)
        compared = Compared(tq, source.text, tuple(source.parameters), "", compared.value_sets, compared.values_from,
                            call=call)
    what = f"a call of {', '.join(call.procedures)}" if call.procedures else "the statement"
    return Compared(compared.query, compared.tsql, compared.parameters, compared.target_sql, compared.value_sets,
                    compared.values_from, batch=f"{what}, run on the target by the procedure runner in a transaction "
                                                  "rolled back", call=call, write=True)
