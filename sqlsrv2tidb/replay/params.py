"""Parameter values for replayed statements: captured ones first, else generated, always from the seed.

For each `?` marker of a translated statement the value comes from, in order of preference:
1. the captured values of the class (`QueryClass.samples`, whole rows so that values that belong
   together stay together, drawn uniformly from the class's reservoir so that they follow the
   captured proportions), mapped to markers through `TranslatedQuery.parameters`; except a primary
   or unique key that an INSERT writes, which gets a fresh value (`fresh`) so no key repeats;
2. a generator from the workload spec (`QueryClass.generators`, keyed by parameter or column
   name), like seed 000's `e_type = random(1, 8)`;
3. values already in the target table's column, when the marker is compared with a column in a
   WHERE clause and the table has rows (so lookups find rows);
4. a value of the marker's declared type (the parameter's T-SQL type, else the column's type).

The same seed, step, shard and class always give the same values, so two runs with the same seed
send identical statements. Each step of a ramp draws from its own stream and numbers its sends
after the previous steps' (`step`, `serial_base`), so a later step never repeats an earlier step's
generated keys; a run without `--seed` draws a new seed (see `config.ReplayConfig.seed`), so a rerun
does not repeat the keys of the last one either.
"""

from __future__ import annotations

import math
import random
import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from ..model import Database, Generator, QueryClass
from ..model.translation import TranslatedQuery
from ..model.workload import Scalar
from ..procedures.failures import TsqlError
from ..procedures.values import assign
from ..tsql.literals import typed_value
from .fresh import fresh_maker
from .sqltext import to_named_markers


@dataclass(frozen=True)
class MarkerColumn:
    """What a marker is bound to in the statement: a column, and how (compared, inserted, assigned)."""

    table: str | None = None
    """`schema.table` or `table` as the statement names it."""
    column: str | None = None
    role: str = "other"
    """`where` (compared with the column), `insert` (a VALUES position), `set` or `other`."""


@dataclass(frozen=True)
class ValueSource:
    """How one marker's value is made; the plan is built once and shipped to every worker."""

    kind: str
    """`sample` (from a captured row), `fresh` (a written key: a value no send of the run repeats),
    `generator`, `pool` (values read from the target), `type`."""
    index: int = -1
    """The marker's position among the class's declared parameters (-1: unknown): where its value sits
    in a captured row or event."""
    generator: Generator | None = None
    pool: tuple[Scalar, ...] = ()
    type: str = "int"
    read_as: str | None = None
    """For `sample`: the date type of the column a character parameter is compared with. SQL Server
    converts the string to that type by its own rules (data type precedence: `'1/5/2016'` is
    January 5), TiDB compares a string it cannot read as text; the value is sent as SQL Server read it."""
    declared: str | None = None
    """For `sample`: the parameter's declared T-SQL type, which SQL Server converts the value to before the
    statement sees it (`decimal(4,1)`: 6.75 is 6.8; `datetime`: .005 s is .007; `varchar(10)` cuts the text):
    the value is sent converted so (`procedures.values.assign`)."""


@dataclass(frozen=True)
class ParameterPlan:
    markers: tuple[ValueSource, ...] = ()
    samples: tuple[tuple[Scalar, ...], ...] = ()
    description: str = ""
    """Where the values come from, in words, for replay.json."""
    captured_from: int = 0
    """Executions the captured rows were drawn from (0: not counted)."""
    fresh: tuple[str, ...] = ()
    """Written key columns whose captured values were replaced by fresh ones."""

    @property
    def takes_captured(self) -> bool:
        """Whether a captured value row (an event's values) can fill every marker."""
        return all(m.index >= 0 for m in self.markers)

    def summary(self) -> dict[str, Any]:
        """Where this class's values came from, for replay.json's `per_query[].values`."""
        kinds = {m.kind for m in self.markers}
        source = ("none" if not kinds else "captured" if kinds <= {"sample", "fresh"} else
                  "generated" if "sample" not in kinds else "captured and generated")
        return {"source": source, "captured_sets": len(self.samples), "captured_from": self.captured_from or None,
                "fresh_keys": list(self.fresh), "description": self.description or "no parameters"}


def marker_columns(target_sql: str) -> list[MarkerColumn]:
    """The column each `?` of a MySQL/TiDB statement is bound to, in marker order (best effort)."""
    import sqlglot
    from sqlglot import exp

    named, count = to_named_markers(target_sql)
    found: list[MarkerColumn] = [MarkerColumn() for _ in range(count)]
    if not count:
        return found
    try:
        tree = sqlglot.parse_one(named, read="mysql")
    except Exception:  # noqa: BLE001 - sqlglot raises several kinds; an unparsed statement has no hints
        return found
    tables = {t.alias_or_name.casefold(): _table_name(t) for t in tree.find_all(exp.Table)}
    only_table = next(iter(tables.values())) if len(set(tables.values())) == 1 else None
    for ph in tree.find_all(exp.Placeholder):
        m = re.fullmatch(r"p(\d+)", str(ph.this or ""))
        if not m or int(m[1]) >= count:
            continue
        parent = ph.parent
        column: exp.Column | None = None
        role = "other"
        if isinstance(parent, (exp.In, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like)):
            other = parent.expression if parent.this is ph else parent.this
            if isinstance(other, exp.Column):
                column = other
                role = "set" if isinstance(parent.parent, exp.Update) else "where"
        elif isinstance(parent, exp.Between) and ph is not parent.this and isinstance(parent.this, exp.Column):
            column, role = parent.this, "where"  # `col BETWEEN ? AND ?`: a bound of the column's range
        elif isinstance(parent, exp.Tuple) and isinstance(tree, exp.Insert):
            schema = tree.this
            if isinstance(schema, exp.Schema) and ph in parent.expressions:
                position = parent.expressions.index(ph)
                names = schema.expressions
                if position < len(names):
                    found[int(m[1])] = MarkerColumn(_table_name(schema.this), names[position].name, "insert")
            continue
        if column is not None:
            table = tables.get(column.table.casefold()) if column.table else only_table
            found[int(m[1])] = MarkerColumn(table, column.name, role)
    return found


def _table_name(table: Any) -> str:
    return f"{table.db}.{table.name}" if getattr(table, "db", "") else table.name


def plan_parameters(
    query: QueryClass | None,
    translated: TranslatedQuery,
    markers: int,
    database: Database,
    pools: dict[int, tuple[Scalar, ...]] | None = None,
    columns: Sequence[MarkerColumn] | None = None,
    keys: frozenset[str] = frozenset(),
) -> ParameterPlan:
    """Decide where each marker's value comes from (see the module docstring for the order); `keys` are the
    (case-folded) primary and unique key columns of the table an INSERT writes."""
    pools = pools or {}
    columns = list(columns) if columns is not None else marker_columns(translated.target_sql or "")
    columns += [MarkerColumn()] * (markers - len(columns))
    declared = {p.name.casefold(): (i, p.type) for i, p in enumerate(query.parameters)} if query else {}
    generators = {k.lstrip("@").casefold(): g for k, g in (query.generators if query else {}).items()}
    samples = tuple(s for s in (query.samples if query else ()) if len(s) == len(declared)) if declared else ()
    sources: list[ValueSource] = []
    why: set[str] = set()
    fresh: list[str] = []
    for i in range(markers):
        name = translated.parameters[i] if i < len(translated.parameters) else None
        col = columns[i]
        index, type_text = declared.get(name.casefold(), (None, None)) if name else (None, None)
        gen = (generators.get(name.lstrip("@").casefold()) if name else None) or (
            generators.get(col.column.casefold()) if col.column else None
        )
        position = -1 if index is None else index
        if samples and index is not None and col.role == "insert" and (col.column or "").casefold() in keys:
            sources.append(ValueSource("fresh", index=position, type=type_text or _column_type(database, col) or "int"))
            fresh.append(col.column or "")
            why.add("fresh values for written keys")
        elif samples and index is not None:
            sources.append(ValueSource("sample", index=position, read_as=_read_as(type_text, _column_type(database, col)),
                                       declared=_converts(type_text)))
            why.add("captured values")
        elif gen is not None:
            sources.append(ValueSource("generator", index=position, generator=gen))
            why.add("workload spec generators")
        elif pools.get(i):
            sources.append(ValueSource("pool", index=position, pool=pools[i]))
            why.add("values sampled from the target")
        else:
            sources.append(ValueSource("type", index=position, type=type_text or _column_type(database, col) or "int"))
            why.add("generated from declared types")
    uses_samples = any(s.kind == "sample" for s in sources)
    return ParameterPlan(tuple(sources), samples if uses_samples else (), ", ".join(sorted(why)),
                         query.samples_from if query is not None and uses_samples else 0, tuple(fresh))


_CHARACTER = ("char", "varchar", "nchar", "nvarchar", "text", "ntext", "sysname")
_DATES = ("date", "datetime", "datetime2", "smalldatetime")


_CONVERTED = re.compile(r"^\s*(?:(?:decimal|numeric|dec)\s*\(\s*\d+\s*,\s*\d+\s*\)|(?:small)?money|"
                        r"(?:tiny|small|big)?int|bit|(?:small)?datetime|datetime2\s*\(\s*[0-5]\s*\)|"
                        r"n?(?:var)?char\s*\(\s*\d+\s*\))\s*$", re.IGNORECASE)


def _converts(declared: str | None) -> str | None:
    """The declared type when SQL Server's conversion to it may change a value the capture holds, else None."""
    return declared if declared and _CONVERTED.match(declared) else None


def _read_as(declared: str | None, column: str | None) -> str | None:
    """The date type a captured string is converted to where it meets a date column, else None."""
    if not column or _base(column) not in _DATES:
        return None
    return column if declared is None or _base(declared) in _CHARACTER else None


def _base(type_text: str) -> str:
    return type_text.split("(")[0].strip().lower()


def _column_type(database: Database, col: MarkerColumn) -> str | None:
    if not col.column or not col.table:
        return None
    schema, _, name = col.table.rpartition(".")
    table = database.table(schema or None, name) or database.table(None, name)
    column = table.column(col.column) if table else None
    return str(column.type) if column else None


@dataclass
class ParameterMaker:
    """Makes the value tuples of one class on one shard; same (seed, step, shard, class) → same values.

    `next` runs once per replayed statement, so each marker's source is turned into a small
    function once, here, rather than dispatched (and its type text parsed) on every call.
    `step` numbers the schedules of one run (a ramp's steps): each draws from its own random
    stream, and `serial_base` starts its send numbers (a `sequence` generator's values) past the
    numbers every earlier step could have used.
    """

    plan: ParameterPlan
    seed: int
    shard: int
    shards: int
    class_id: str
    step: int = 0
    serial_base: int = 0
    rng: random.Random = field(init=False)
    made: int = field(default=0, init=False)
    _makers: tuple[Callable[[tuple[Any, ...], int], Any], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        stream = f"{self.seed}:{self.shard}" if self.step == 0 else f"{self.seed}:step{self.step}:{self.shard}"
        self.rng = random.Random(f"params:{stream}:{self.class_id}")
        self._makers = tuple(_value_maker(source, self.rng, f"{self.seed}:{self.class_id}:{i}")
                             for i, source in enumerate(self.plan.markers))

    def next(self, captured: tuple[Any, ...] | None = None) -> tuple[Any, ...]:
        """The next send's values: from a drawn sample row, or from `captured` (an event's own values),
        which fills every marker but the fresh keys."""
        serial = self.serial_base + self.shard + self.made * self.shards
        self.made += 1
        if captured is not None:
            return tuple([make(captured, serial) if m.kind in ("fresh", "sample") else
                          to_driver(as_declared(captured[m.index], m.declared) if m.declared else captured[m.index])
                          for m, make in zip(self.plan.markers, self._makers, strict=True)])
        row = self.rng.choice(self.plan.samples) if self.plan.samples else ()
        return tuple([make(row, serial) for make in self._makers])


def as_declared(value: Any, declared: str) -> Any:
    """A captured value as its declared T-SQL type holds it; as captured where SQL Server would refuse it (the
    statement then fails on both servers, as it did on SQL Server)."""
    try:
        return assign(value, declared)
    except TsqlError:
        return value


def serial_span(total_qps: float, duration: float, shards: int, arrival: str) -> int:
    """Send numbers one schedule may use (a multiple of `shards`): the next step's `serial_base` moves by this.

    A shard's n-th value of a class has number shard + n × shards, and a shard sends at most
    ⌈sends / shards⌉ statements with uniform arrivals; Poisson arrivals get a margin far beyond
    their spread (a shard's count has a standard deviation of √mean).
    """
    per_shard = total_qps * duration / shards
    if arrival != "uniform":
        per_shard += 10 * math.sqrt(per_shard) + 100
    return (math.ceil(per_shard) + 1) * shards


def _value_maker(source: ValueSource, rng: random.Random, stream: str) -> Callable[[tuple[Any, ...], int], Any]:
    """One marker's source as a function of (the chosen sample row, the send's serial number); `stream`
    seeds what must be the same on every shard and step of a run (a fresh key's base)."""
    kind = source.kind
    if kind == "sample":
        index, read_as, declared = source.index, source.read_as, source.declared
        if read_as:
            return lambda row, _serial: to_driver(typed_value(row[index], read_as))
        if declared:
            return lambda row, _serial: to_driver(as_declared(row[index], declared))
        return lambda row, _serial: to_driver(row[index])
    if kind == "fresh":
        make = fresh_maker(source.type, random.Random(f"fresh:{stream}"))
        return lambda _row, serial: make(serial)
    if kind == "pool":
        pool = tuple(to_driver(v) for v in source.pool)
        choice = rng.choice
        return lambda _row, _serial: choice(pool)
    if kind == "generator":
        gen = source.generator
        assert gen is not None
        if gen.kind == "random_int":
            draw = uniform_int(rng, int(gen.min if gen.min is not None else 0),
                               int(gen.max if gen.max is not None else 2**31 - 1))
            return lambda _row, _serial: draw()
        if gen.kind == "constant":
            value = to_driver(gen.value)
            return lambda _row, _serial: value
        return lambda _row, serial: generate(gen, rng, serial)
    type_text = source.type
    match = _TYPE.match(type_text.lower())
    if match and match[1] in _INT_RANGES:
        draw = uniform_int(rng, *_INT_RANGES[match[1]])
        return lambda _row, _serial: draw()
    return lambda _row, _serial: value_of_type(type_text, rng)


def uniform_int(rng: random.Random, low: int, high: int) -> Callable[[], int]:
    """A function drawing integers uniformly from [low, high], reproducible from `rng`.

    `random()` scaled is several times cheaper than `randint` (which loops through `randrange`),
    and exact enough while the range is below 2**53, where a double still holds every integer.
    """
    span = high - low + 1
    if span <= 0:
        return lambda: low
    if span >= 1 << 53:
        return lambda: rng.randrange(low, high + 1)
    draw = rng.random
    last = span - 1
    return lambda: low + min(int(draw() * span), last)


def to_driver(value: Scalar) -> Any:
    """A stored JSON value as the driver should send it (`0x..` text is binary)."""
    if isinstance(value, str) and len(value) > 2 and value[:2] in ("0x", "0X") and _HEX.fullmatch(value[2:]):
        return bytes.fromhex(value[2:])
    if isinstance(value, bool):
        return int(value)
    return value


_HEX = re.compile(r"(?:[0-9A-Fa-f]{2})+")
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


def generate(gen: Generator, rng: random.Random, serial: int) -> Any:
    """One value from a workload-spec generator; `serial` numbers the sends of a shard without overlap."""
    kind = gen.kind
    if kind == "random_int":
        return uniform_int(rng, int(gen.min if gen.min is not None else 0),
                           int(gen.max if gen.max is not None else 2**31 - 1))()
    if kind == "random_float":
        return rng.uniform(gen.min or 0.0, gen.max if gen.max is not None else 1.0)
    if kind == "choice":
        return to_driver(rng.choice(gen.values)) if gen.values else None
    if kind == "sequence":
        return (gen.start or 1) + (gen.step or 1) * serial
    if kind == "constant":
        return to_driver(gen.value)
    if kind == "random_string":
        return _text(rng, gen.length or 16)
    if kind == "uuid":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if kind == "now":
        return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    raise ValueError(f"unknown generator kind {kind!r}")


_TYPE = re.compile(r"\s*(\w+)\s*(?:\(\s*(\w+)\s*(?:,\s*(\d+))?\s*\))?")
_INT_RANGES = {"tinyint": (0, 255), "smallint": (1, 32767), "int": (1, 2**31 - 1), "bigint": (1, 2**63 - 1)}


def value_of_type(type_text: str, rng: random.Random) -> Any:
    """A random value that fits a T-SQL (or MySQL) type such as `int`, `nvarchar(50)`, `decimal(18,2)`."""
    m = _TYPE.match(type_text.lower())
    base = m[1] if m else "int"
    arg = m[2] if m else None
    if base in _INT_RANGES:
        return uniform_int(rng, *_INT_RANGES[base])()
    if base in ("bit", "bool", "boolean"):
        return rng.randint(0, 1)
    if base in ("decimal", "numeric", "money", "smallmoney"):
        precision = int(arg) if arg and arg.isdigit() else 18
        scale = int(m[3]) if m and m[3] else (4 if "money" in base else 0)
        whole = 10 ** min(precision - scale, 9) - 1
        return round(rng.uniform(0, whole), scale)
    if base in ("float", "real", "double"):
        return rng.uniform(0, 1e6)
    if base in ("char", "nchar", "varchar", "nvarchar", "text", "ntext", "sysname"):
        size = int(arg) if arg and arg.isdigit() else 16
        length = size if base in ("char", "nchar") else rng.randint(1, max(1, min(size, 32)))
        return _text(rng, min(length, 255))
    if base in ("binary", "varbinary", "image", "rowversion", "timestamp"):
        size = int(arg) if arg and arg.isdigit() else 8
        return rng.getrandbits(8 * min(size, 64)).to_bytes(min(size, 64), "big")
    if base == "uniqueidentifier":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4)).upper()
    if base in ("date", "datetime", "datetime2", "smalldatetime", "datetimeoffset", "time"):
        moment = _EPOCH + timedelta(seconds=rng.randrange(365 * 86400))
        if base == "date":
            return moment.strftime("%Y-%m-%d")
        if base == "time":
            return moment.strftime("%H:%M:%S")
        return moment.strftime("%Y-%m-%d %H:%M:%S")
    return rng.randint(1, 1000)


_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _text(rng: random.Random, length: int) -> str:
    return "".join(rng.choices(_ALPHABET, k=length))
