"""The values of one synthesized column: from SQL Server's histogram, or from its type and CHECKs.

A column of N rows is a fixed multiset laid out in positions 0..N-1 (NULLs first, then each
histogram step's values in ascending order); the table generator (synth.py) maps row numbers to
positions through a seeded permutation, so counts are exact and no column is sorted by another.

From a histogram (model/statistics.py), each step gets its share of the non-NULL rows by
`RANGE_ROWS + EQ_ROWS`, split between the step's key (EQ_ROWS's share) and `DISTINCT_RANGE_ROWS`
distinct values strictly between the previous key and this one, spaced evenly on the column's
own grain (1 for integers, a day for dates, 10^-scale for decimals, the fractional-second digits
for times). A unique column takes one row per value; when the steps have no room for that many
(a scale above 1 on a dense identity), the rest follow after the largest key. Text values between
two keys are the lower key followed by a space and a counter, which sorts between them in binary
and in SQL Server's default collations alike.

Without a histogram, values come from the type's range, narrowed by the column's CHECK bounds or
choices (checks.py), and drawn with a seeded hash of the position: the same seed, the same rows.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from ..model import ColumnStatistics, DataType
from .checks import ColumnRule
from .normalize import TargetType, Unconvertible, normalize

MASK = (1 << 64) - 1
EPOCH = datetime(1, 1, 1)
_INTS = {"tinyint": (0, 255), "smallint": (-32768, 32767), "int": (-(1 << 31), (1 << 31) - 1),
         "bigint": (-(1 << 63), (1 << 63) - 1), "bit": (0, 1)}
_PLAUSIBLE = {"tinyint": (0, 100), "smallint": (0, 1000), "int": (1, 100_000), "bigint": (1, 10_000_000), "bit": (0, 1)}
_TEXT = {"char", "varchar", "nchar", "nvarchar", "sysname", "text", "ntext", "xml", "sql_variant"}
_BINARY = {"binary", "varbinary", "image", "rowversion", "timestamp", "hierarchyid", "geography", "geometry"}
_DATES = {"date": "date", "datetime": "datetime", "smalldatetime": "datetime", "datetime2": "datetime",
          "datetimeoffset": "datetime", "time": "time"}


def mix(x: int) -> int:
    """splitmix64's finalizer: a cheap, well-spread 64-bit hash of a position and a seed."""
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def kind_of(dt: DataType) -> str:
    name = dt.name.casefold()
    if name in _INTS:
        return "int"
    if name in ("decimal", "numeric", "money", "smallmoney"):
        return "decimal"
    if name in ("float", "real"):
        return "float"
    if name in _DATES:
        return _DATES[name]
    if name == "uniqueidentifier":
        return "uuid"
    if name in _BINARY:
        return "binary"
    return "text"


@dataclass(frozen=True)
class Grain:
    """Turns a column's values into integers on its own grain and back (for spacing values evenly)."""

    kind: str
    scale: int = 0

    def unit(self, value: Any) -> int | float:
        if self.kind == "uuid":  # the 128 bits in the order of the upper-case text
            return int(str(value).replace("-", ""), 16)
        if self.kind == "text":  # a base-37 number of `scale` digits: space, 0-9, a-z, case folded
            number = 0
            for ch in str(value).casefold()[: self.scale].ljust(self.scale):
                number = number * len(_ALPHABET) + _digit(ch)
            return number
        if self.kind == "int":
            return int(value)
        if self.kind == "decimal":
            return int(Decimal(value).scaleb(self.scale).to_integral_value())
        if self.kind == "float":
            return float(value)
        if self.kind == "date":
            return value.toordinal()
        if self.kind == "datetime":
            delta = value - EPOCH
            return (delta.days * 86_400_000_000 + delta.seconds * 1_000_000 + delta.microseconds) // self._step()
        if self.kind == "time":
            micros = ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
            return micros // self._step()
        raise ValueError(self.kind)

    def value(self, unit: int | float) -> Any:
        if self.kind == "text":
            digits, number = [], int(unit)
            for _ in range(self.scale):
                number, d = divmod(number, len(_ALPHABET))
                digits.append(_ALPHABET[d])
            text = "".join(reversed(digits)).rstrip(" ")
            return text[:1].upper() + text[1:]
        if self.kind == "uuid":
            h = f"{int(unit) % (1 << 128):032X}"
            return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        if self.kind == "int":
            return int(unit)
        if self.kind == "decimal":
            return Decimal(int(unit)).scaleb(-self.scale)
        if self.kind == "float":
            return float(unit)
        if self.kind == "date":
            return date.fromordinal(max(1, min(int(unit), date.max.toordinal())))
        if self.kind == "datetime":
            return EPOCH + timedelta(microseconds=int(unit) * self._step())
        if self.kind == "time":
            micros = int(unit) * self._step() % 86_400_000_000
            return (datetime.min + timedelta(microseconds=micros)).time()
        raise ValueError(self.kind)

    def _step(self) -> int:
        return 10 ** (6 - min(self.scale, 6))


_ALPHABET = " 0123456789abcdefghijklmnopqrstuvwxyz"
"""In code-point order, which is also the order of case-folded text in binary and default collations."""


def _digit(ch: str) -> int:
    """The alphabet's largest character not above `ch` (characters outside it sort near their neighbours)."""
    from bisect import bisect_right

    return max(0, bisect_right(_ALPHABET, ch) - 1)


def grain_of(dt: DataType, max_length: int | None = None) -> Grain | None:
    """A column's grain; text keys are spread as numbers over their first `max_length` (at most 40) characters."""
    kind, name = kind_of(dt), dt.name.casefold()
    if kind == "text" and name not in ("xml", "sql_variant"):
        limit = dt.length if dt.length and dt.length > 0 else 40
        return Grain("text", min(limit, max_length or limit, 40))
    if kind in ("int", "float", "date", "uuid"):
        return Grain(kind)
    if kind == "decimal":
        return Grain(kind, 4 if name in ("money", "smallmoney") else dt.scale or 0)
    if kind in ("datetime", "time"):
        scale = {"datetime": 3, "smalldatetime": 0}.get(name, dt.scale if dt.scale is not None else 7)
        return Grain(kind, 0 if name == "smalldatetime" else scale)
    return None


def parse_key(text: str, dt: DataType) -> Any:
    """A histogram step's RANGE_HI_KEY (as the capture keeps it, text) in the column's own kind."""
    kind = kind_of(dt)
    if kind == "int":
        return int(Decimal(text))
    if kind == "decimal":
        return Decimal(text)
    if kind == "float":
        return float(text)
    if kind in ("date", "datetime", "time"):
        target = {"date": "DATE", "datetime": "DATETIME(6)", "time": "TIME(6)"}[kind]
        value = normalize(text, TargetType.parse(target))
        if kind == "time":
            return (datetime.min + value).time() if value < timedelta(days=1) else time.max
        return value
    if kind == "binary":
        return bytes.fromhex(text[2:] if text[:2].lower() == "0x" else text)
    return text


class Column:
    """Positions 0..rows-1 of one column; `value(p)` is the value at p (None for the NULLs at the start)."""

    def __init__(self, rows: int, nulls: int, segments: list[tuple[int, int, Callable[[int], Any]]]) -> None:
        self.rows, self.nulls = rows, nulls
        self.segments = segments
        """(first position, count of values, value(index within the segment)) in ascending value order."""
        self._starts = [s[0] for s in segments]

    def value(self, position: int) -> Any:
        if position < self.nulls:
            return None
        from bisect import bisect_right

        segment = self.segments[bisect_right(self._starts, position) - 1]
        return segment[2](position - segment[0])


def from_histogram(stats: ColumnStatistics, dt: DataType, rows: int, *, unique: bool, nullable: bool,
                   max_length: int | None) -> Column:
    """The column SQL Server's histogram describes, at `rows` rows."""
    total = stats.histogram_rows or 1
    nulls = round(rows * stats.null_rows / total) if nullable else 0
    steps = [s for s in stats.histogram if s.range_hi_key is not None]
    keys = [parse_key(s.range_hi_key, dt) for s in steps]
    shares = allocate(rows - nulls, [s.range_rows + s.eq_rows for s in steps])
    grain = grain_of(dt, max_length)
    segments: list[tuple[int, int, Callable[[int], Any]]] = []
    position, overflow = nulls, 0
    for i, (step, key, share) in enumerate(zip(steps, keys, shares, strict=True)):
        if share <= 0:
            continue
        weight = step.range_rows + step.eq_rows
        if unique:
            eq, inside = 1, share - 1
            distinct = inside
        elif i == 0 or step.range_rows <= 0 or not weight:
            eq, inside, distinct = share, 0, 0
        else:
            eq = round(share * step.eq_rows / weight)
            inside = share - eq
            distinct = min(inside, max(1, round(step.distinct_range_rows))) if inside else 0
        room = 0 if i == 0 else _room(keys[i - 1], key, grain)
        if room is not None and distinct > room:
            if unique:
                overflow += inside - room
                inside = distinct = room
            elif room == 0:
                eq, inside, distinct = eq + inside, 0, 0
            else:
                distinct = room
        if inside:
            segments.append((position, inside, _spread(_between(keys[i - 1], key, grain, distinct, max_length),
                                                       distinct, inside)))
            position += inside
        segments.append((position, eq, (lambda k: lambda _: k)(key)))
        position += eq
    if overflow and keys:
        segments.append((position, overflow, _after(keys[-1], grain, max_length)))
    return Column(rows, nulls, segments)


def allocate(total: int, weights: list[float]) -> list[int]:
    """Largest-remainder split of `total` by `weights`: the shares add up to `total` exactly."""
    whole = sum(weights)
    if total <= 0 or whole <= 0:
        return [0] * len(weights)
    raw = [total * w / whole for w in weights]
    shares = [int(r) for r in raw]
    for i in sorted(range(len(raw)), key=lambda i: raw[i] - shares[i], reverse=True)[: total - sum(shares)]:
        shares[i] += 1
    return shares


def _room(low: Any, high: Any, grain: Grain | None) -> int | None:
    """How many distinct values fit strictly between two keys (None: as many as wanted)."""
    if grain is None or grain.kind == "float":
        return None
    return max(0, int(grain.unit(high) - grain.unit(low)) - 1)


def _between(low: Any, high: Any, grain: Grain | None, count: int, max_length: int | None) -> Callable[[int], Any]:
    """The j-th of `count` distinct values strictly between `low` and `high`, in ascending order."""
    if grain is not None:
        a, b = grain.unit(low), grain.unit(high)
        if grain.kind == "float":
            return lambda j: float(a + (b - a) * (j + 1) / (count + 1))
        room = b - a - 1
        return lambda j: grain.value(a + 1 + j * room // count)
    if isinstance(low, str):
        width = len(_letters(count))
        return lambda j: _fit(f"{low} {_letters(j).rjust(width, 'a')}", max_length)
    if isinstance(low, bytes):
        return lambda j: low + j.to_bytes(4, "big")
    return lambda j: str(uuid.UUID(int=mix(hash((str(low), j))) << 64 | mix(j)))


def _after(last: Any, grain: Grain | None, max_length: int | None) -> Callable[[int], Any]:
    if grain is not None:
        start = grain.unit(last)
        return lambda j: grain.value(start + 1 + j)
    if isinstance(last, str):
        return lambda j: _fit(f"{last} {_letters(j)}", max_length)
    return _between(last, None, None, 0, max_length)


def _spread(value: Callable[[int], Any], distinct: int, rows: int) -> Callable[[int], Any]:
    """`rows` rows over `distinct` values, as evenly as whole rows allow, in order."""
    return lambda k: value(k * distinct // rows)


def _letters(n: int) -> str:
    out = ""
    while True:
        n, r = divmod(n, 26)
        out = chr(97 + r) + out
        if n == 0:
            return out
        n -= 1


def _fit(text: str, max_length: int | None) -> str:
    return text if max_length is None or max_length < 0 or len(text) <= max_length else text[-max_length:]


# Without statistics ----------------------------------------------------------------------------

def from_type(dt: DataType, rows: int, rule: ColumnRule | None, seed: int, *, unique: bool,
              max_length: int | None) -> tuple[Column, str]:
    """A column from its type and CHECK rule; returns it with how its values were chosen (for data.json)."""
    kind, name = kind_of(dt), dt.name.casefold()
    if rule is not None and rule.choices:
        choices = [_as(c, dt) for c in rule.choices]
        return Column(rows, 0, [(0, rows, lambda p: choices[mix(seed ^ p) % len(choices)])]), \
            f"one of {len(choices)} values its CHECK allows"
    grain = grain_of(dt)
    if grain is not None and kind not in ("uuid", "text"):
        low, high = _bounds(dt, kind, name, grain, rule)
        if unique:
            return Column(rows, 0, [(0, rows, lambda p: grain.value(low + p))]), "distinct values of its type, in order"
        span = max(high - low, 1)
        if kind == "float":
            return Column(rows, 0, [(0, rows, lambda p: low + span * (mix(seed ^ p) / 2 ** 64))]), "its type's range"
        return Column(rows, 0, [(0, rows, lambda p: grain.value(low + mix(seed ^ p) % (int(span) + 1)))]), \
            "its type's range" + (" within its CHECK" if rule is not None and (rule.low is not None or rule.high is not None) else "")
    if kind == "uuid":
        return Column(rows, 0, [(0, rows, lambda p: str(uuid.UUID(int=(mix(seed ^ p) << 64) | mix(~seed & MASK ^ p))).upper())]), \
            "random uniqueidentifiers"
    if name == "hierarchyid":
        return Column(rows, 0, [(0, rows, tree_path)]), "the nodes of a tree three wide, level by level (their paths)"
    if kind == "binary":
        size = dt.length if dt.length and 0 < dt.length <= 16 else 8
        fixed = name == "binary"
        return Column(rows, 0, [(0, rows, lambda p: mix(seed ^ p).to_bytes(8, "big").ljust(16, b"\x01")[:size if fixed else 1 + p % size] +
                                 (p.to_bytes(4, "big") if unique else b""))]), "bytes of its length"
    if name == "xml":
        return Column(rows, 0, [(0, rows, lambda p: f"<v>{p}</v>")]), "small XML documents"
    limit = dt.length if dt.length and dt.length > 0 else 40
    limit = min(limit, max_length) if max_length else limit
    return Column(rows, 0, [(0, rows, lambda p: _word(seed, p, limit, unique))]), "text of its length"


def tree_path(position: int) -> str:
    """The path of the node at `position` of a tree in which every node has three children, numbered level by level
    (0 is the root `/`, 1..3 its children `/1/`../3/`): distinct, and each node's parent is made before it."""
    labels: list[int] = []
    while position > 0:
        position, child = divmod(position - 1, 3)
        labels.insert(0, child + 1)
    return "/" + "".join(f"{label}/" for label in labels)


def _bounds(dt: DataType, kind: str, name: str, grain: Grain, rule: ColumnRule | None) -> tuple[int | float, int | float]:
    if kind in ("int", "decimal", "float"):
        low, high = _PLAUSIBLE.get(name, (0, 10_000))
        if kind == "decimal" and dt.precision:
            high = min(high, 10 ** (dt.precision - (dt.scale or 0)) - 1)
        low_unit, high_unit = grain.unit(low), grain.unit(high)
    elif kind == "date":  # before "today minus 18 years" for a long while: birth-date checks hold
        low_unit, high_unit = date(1990, 1, 1).toordinal(), date(2005, 12, 31).toordinal()
    elif kind == "datetime":
        low_unit, high_unit = grain.unit(datetime(1990, 1, 1)), grain.unit(datetime(2005, 12, 31))
    else:
        low_unit, high_unit = 0, grain.unit(time(23, 59, 59))
    if rule is not None:
        if rule.low is not None:
            bound = grain.unit(_as(rule.low, dt)) + (1 if rule.low_open and kind != "float" else 0)
            low_unit = max(low_unit, bound) if rule.high is None else bound
            high_unit = max(high_unit, low_unit)
        if rule.high is not None:
            bound = grain.unit(_as(rule.high, dt)) - (1 if rule.high_open and kind != "float" else 0)
            high_unit = min(high_unit, bound) if rule.low is None or bound >= low_unit else bound
            low_unit = min(low_unit, high_unit)
    if kind == "int":
        lo, hi = _INTS.get(name, (-(1 << 63), (1 << 63) - 1))
        low_unit, high_unit = max(low_unit, lo), min(high_unit, hi)
    return low_unit, high_unit


def _as(value: Any, dt: DataType) -> Any:
    """A CHECK literal in the column's kind (numbers for number columns, dates for date columns)."""
    if isinstance(value, str) and kind_of(dt) in ("date", "datetime", "time", "int", "decimal", "float"):
        try:
            return parse_key(value, dt)
        except (Unconvertible, ValueError, ArithmeticError):
            return value
    if isinstance(value, Decimal) and kind_of(dt) == "int":
        return int(value)
    if isinstance(value, Decimal) and kind_of(dt) == "float":
        return float(value)
    if isinstance(value, Decimal) and kind_of(dt) == "text":
        return str(value)
    return value


def _word(seed: int, p: int, limit: int, unique: bool) -> str:
    h = mix(seed ^ p)
    length = 3 + h % 10
    text = "".join(chr(97 + (h >> (5 * i)) % 26) for i in range(length))
    text = text[0].upper() + text[1:]
    if unique:
        text = f"{text}{p}"
        return text[-limit:] if len(text) > limit else text
    return text[:limit]
