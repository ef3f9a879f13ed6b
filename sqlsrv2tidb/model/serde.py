"""JSON round-trip for the frozen dataclasses that carry data between stages.

Every stage reads and writes plain JSON (capture folders, `assessment.json`, `replay.json`), so the
models need one exact, reversible mapping: dataclass -> dict of JSON values -> the same dataclass.
The mapping is driven by the type hints, so adding a field to a model needs no serialisation code.

    >>> @dataclass(frozen=True)
    ... class P:
    ...     x: int
    ...     tags: tuple[str, ...] = ()
    >>> from_dict(P, to_dict(P(1, ("a",))))
    P(x=1, tags=('a',))
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from typing import Any, TypeVar

T = TypeVar("T")


def to_dict(obj: Any) -> Any:
    """Turn a dataclass tree into JSON values; fields equal to their default are kept (explicit files)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, (list, tuple)):
        return [to_dict(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_dict(v) for k, v in obj.items()}
    return obj


def from_dict(cls: type[T], data: Any) -> T:
    """Build `cls` from JSON values, converting nested dataclasses, enums, tuples and optionals.

    A value of the wrong shape raises ValueError naming its path (`Capture.database.tables[3].name`).
    """
    try:
        return _convert(cls, data, cls.__name__)
    except TypeError as exc:
        raise ValueError(str(exc)) from None


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _convert(tp: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _convert(arg, value, where)
            except (TypeError, ValueError) as exc:
                errors.append(str(exc))
        raise ValueError(f"{where}: {value!r} fits none of {tp}: {'; '.join(errors)}")
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{where}: expected a list, got {type(value).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        return tuple(_convert(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value, strict=True)))
    if origin is list:
        (arg,) = typing.get_args(tp)
        return [_convert(arg, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        key_tp, val_tp = typing.get_args(tp)
        if not isinstance(value, dict):
            raise TypeError(f"{where}: expected an object, got {type(value).__name__}")
        return {_convert(key_tp, k, where): _convert(val_tp, v, f"{where}.{k}") for k, v in value.items()}
    if origin is typing.Literal:
        if value not in typing.get_args(tp):
            raise ValueError(f"{where}: {value!r} is not one of {typing.get_args(tp)}")
        return value
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise TypeError(f"{where}: expected an object for {tp.__name__}, got {type(value).__name__}")
        hints = _hints(tp)
        kwargs = {}
        missing = []
        for f in dataclasses.fields(tp):
            if f.name in value:
                kwargs[f.name] = _convert(hints[f.name], value[f.name], f"{where}.{f.name}")
            elif f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                missing.append(f.name)
        if missing:
            raise TypeError(f"{where}: missing {', '.join(missing)}")
        return tp(**kwargs)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(value)
        except ValueError:
            raise ValueError(f"{where}: {value!r} is not one of {', '.join(repr(m.value) for m in tp)}") from None
    if tp is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if tp in (int, float, str, bool):
        if not isinstance(value, tp) or (tp is int and isinstance(value, bool)):
            raise TypeError(f"{where}: expected {tp.__name__}, got {type(value).__name__}")
        return value
    if tp is type(None):
        if value is not None:
            raise TypeError(f"{where}: expected null")
        return None
    return value
