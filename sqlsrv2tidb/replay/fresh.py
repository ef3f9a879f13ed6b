"""Values for the keys an INSERT writes: never one sent before in the run, and unlikely in any other run.

Captured values are what production sent, and replay sends them again, in their proportions, for
every column they fill, except a primary or unique key of the table an INSERT writes: there a
captured value was inserted once already (in production, and in the target if it was loaded from
it) and a second insert fails with a duplicate key. Such a marker gets a fresh value instead, made
from the send's number (`params.ParameterMaker`: unique across the shards and the steps of a run)
added to a base drawn once per run from the seed, spelled in the column's type: digits for numbers,
upper-case letters and digits for text (equal under a case-insensitive collation only when equal),
a random UUID for `uniqueidentifier`. A rerun draws another base.
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

_TYPE = re.compile(r"\s*(\w+)\s*(?:\(\s*(\w+)\s*(?:,\s*(\d+))?\s*\))?")
_INT_RANGES = {"tinyint": (0, 255), "smallint": (1, 32767), "int": (1, 2**31 - 1), "bigint": (1, 2**63 - 1)}
_TEXT = ("char", "nchar", "varchar", "nvarchar", "text", "ntext", "sysname")
_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_EPOCH = datetime(2030, 1, 1, tzinfo=UTC)


def fresh_maker(type_text: str, rng: random.Random) -> Callable[[int], Any]:
    """A function of the send number giving the key value of that send, for a column of `type_text`."""
    m = _TYPE.match(type_text.lower())
    base_type, arg = (m[1], m[2]) if m else ("int", None)
    if base_type == "uniqueidentifier":
        return lambda _serial: str(uuid.UUID(int=rng.getrandbits(128), version=4)).upper()
    if base_type in _TEXT:
        width = int(arg) if arg and arg.isdigit() else 16
        width = max(1, min(width, 13))  # 36**13 > 2**64: more room than any run needs
        return _counter(rng, len(_DIGITS) ** width, lambda n: _spell(n, width))
    if base_type in ("date", "datetime", "datetime2", "smalldatetime", "datetimeoffset"):
        step = 86400 if base_type == "date" else 1
        fmt = "%Y-%m-%d" if base_type == "date" else "%Y-%m-%d %H:%M:%S"
        return _counter(rng, 50_000 * 86400 // step, lambda n: (_EPOCH + timedelta(seconds=n * step)).strftime(fmt))
    low, high = _INT_RANGES.get(base_type, (1, 2**31 - 1))
    return _counter(rng, high - low + 1, lambda n: low + n)


def _counter(rng: random.Random, width: int, spell: Callable[[int], Any]) -> Callable[[int], Any]:
    """`spell((base + serial) mod width)`: the first `width` sends (2**32 at most) of a run never meet."""
    room = max(1, min(width, 1 << 32))
    base = rng.randrange(width)
    return lambda serial: spell((base + serial % room) % width)


def _spell(n: int, width: int) -> str:
    out = []
    for _ in range(width):
        n, digit = divmod(n, len(_DIGITS))
        out.append(_DIGITS[digit])
    return "".join(reversed(out))
