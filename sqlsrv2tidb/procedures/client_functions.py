"""T-SQL functions the client works out itself when their arguments are values it holds, by SQL Server's rules.

A procedure builds strings (dynamic SQL with QUOTENAME and REPLACE, messages with CONCAT) and JSON
documents (JSON_MODIFY on a variable) from its own variables. Once its logic is the application's,
that work is the application's too, and several of these functions have no TiDB counterpart
(QUOTENAME, JSON_MODIFY) or answer otherwise there (TiDB's JSON functions normalise the text). Each
function here takes the values already worked out and returns SQL Server's answer, or raises
`NotLocal` when only the server's rules can say (a float, a date written by a style), and the
runner asks the target instead where the translator can write the call.
https://learn.microsoft.com/sql/t-sql/functions/string-functions-transact-sql
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from . import json_text


class NotLocal(Exception):
    """The client cannot work this value out by T-SQL's rules: the target is asked."""


def _text(value: Any) -> str:
    """A value as T-SQL converts it to a string implicitly; NotLocal where a style decides (floats, dates)."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, (float, date, datetime, time, bytes, bytearray)):
        raise NotLocal
    raise NotLocal


def _quotename(args: Sequence[Any], case_insensitive: bool) -> Any:
    name = args[0]
    quote = args[1] if len(args) > 1 else "["
    if name is None or quote is None:
        return None
    name, quote = _text(name), _text(quote)
    if len(name) > 128:
        return None
    pairs = {"[": ("[", "]"), "]": ("[", "]"), '"': ('"', '"'), "'": ("'", "'"), "`": ("`", "`"), "(": ("(", ")"),
             ")": ("(", ")"), "<": ("<", ">"), ">": ("<", ">"), "{": ("{", "}"), "}": ("{", "}")}
    if quote[:1] not in pairs:
        return None
    left, right = pairs[quote[:1]]
    return left + name.replace(right, right + right) + right


def _replace(args: Sequence[Any], case_insensitive: bool) -> Any:
    if any(a is None for a in args[:3]):
        return None
    text, find, replacement = (_text(a) for a in args[:3])
    if find == "":
        return text
    flags = re.IGNORECASE if case_insensitive else 0
    return re.sub(re.escape(find), lambda _: replacement, text, flags=flags)


def _concat(args: Sequence[Any], case_insensitive: bool) -> Any:
    return "".join("" if a is None else _text(a) for a in args)


def _string(function: Callable[[str], Any]) -> Callable[[Sequence[Any], bool], Any]:
    def apply(args: Sequence[Any], case_insensitive: bool) -> Any:
        return None if args[0] is None else function(_text(args[0]))

    return apply


def _nchar(args: Sequence[Any], case_insensitive: bool) -> Any:
    code = args[0]
    if code is None:
        return None
    if not isinstance(code, int) or isinstance(code, bool) or not 0 <= code <= 0x10FFFF:
        raise NotLocal
    return chr(code)


def _char(args: Sequence[Any], case_insensitive: bool) -> Any:
    code = args[0]
    if code is None:
        return None
    if not isinstance(code, int) or isinstance(code, bool):
        raise NotLocal
    return chr(code) if 0 <= code <= 127 else _raise()


def _raise() -> Any:
    raise NotLocal  # CHAR above 127 depends on the code page


def _integer(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise NotLocal


def _substring(args: Sequence[Any], case_insensitive: bool) -> Any:
    if any(a is None for a in args[:3]):
        return None
    text, start, length = _text(args[0]), _integer(args[1]), _integer(args[2])
    if length < 0:
        raise NotLocal  # error 537 in SQL Server: the server says it
    end = start + length
    start = max(start, 1)
    return text[start - 1:max(end - 1, start - 1)] if end > 1 else ""


def _left(args: Sequence[Any], case_insensitive: bool) -> Any:
    if args[0] is None or args[1] is None:
        return None
    count = _integer(args[1])
    if count < 0:
        raise NotLocal
    return _text(args[0])[:count]


def _right(args: Sequence[Any], case_insensitive: bool) -> Any:
    if args[0] is None or args[1] is None:
        return None
    count = _integer(args[1])
    if count < 0:
        raise NotLocal
    text = _text(args[0])
    return text[len(text) - count:] if count else ""


def _replicate(args: Sequence[Any], case_insensitive: bool) -> Any:
    if args[0] is None or args[1] is None:
        return None
    count = _integer(args[1])
    return None if count < 0 else _text(args[0]) * count


def _json_value(args: Sequence[Any], case_insensitive: bool) -> Any:
    return json_text.json_value(args[0], args[1])


def _json_query(args: Sequence[Any], case_insensitive: bool) -> Any:
    found = json_text.json_query(args[0], args[1] if len(args) > 1 else "$")
    return None if found is None else json_text.Fragment(found)


def _json_modify(args: Sequence[Any], case_insensitive: bool) -> Any:
    return json_text.json_modify(args[0], args[1], args[2])


def _isjson(args: Sequence[Any], case_insensitive: bool) -> Any:
    if len(args) > 1:
        raise NotLocal  # ISJSON(x, VALUE|ARRAY|OBJECT|SCALAR): SQL Server 2022's type check, left to the target
    return json_text.is_json(args[0])


def _string_escape(args: Sequence[Any], case_insensitive: bool) -> Any:
    if args[0] is None:
        return None
    if args[1] is None or _text(args[1]).lower() != "json":
        raise NotLocal  # SQL Server knows only 'json'; it fails on anything else
    return json_text.escape(_text(args[0]))


FUNCTIONS: dict[str, tuple[int, int, Callable[[Sequence[Any], bool], Any]]] = {
    "QUOTENAME": (1, 2, _quotename),
    "REPLACE": (3, 3, _replace),
    "CONCAT": (2, 254, _concat),
    "UPPER": (1, 1, _string(str.upper)),
    "LOWER": (1, 1, _string(str.lower)),
    "LTRIM": (1, 1, _string(lambda s: s.lstrip(" "))),
    "RTRIM": (1, 1, _string(lambda s: s.rstrip(" "))),
    "TRIM": (1, 1, _string(lambda s: s.strip(" "))),
    "LEN": (1, 1, _string(lambda s: len(s.rstrip(" ")))),
    "NCHAR": (1, 1, _nchar),
    "CHAR": (1, 1, _char),
    "SUBSTRING": (3, 3, _substring),
    "LEFT": (2, 2, _left),
    "RIGHT": (2, 2, _right),
    "REPLICATE": (2, 2, _replicate),
    "JSON_VALUE": (2, 2, _json_value),
    "JSON_QUERY": (1, 2, _json_query),
    "JSON_MODIFY": (3, 3, _json_modify),
    "ISJSON": (1, 2, _isjson),
    "STRING_ESCAPE": (2, 2, _string_escape),
}
"""T-SQL name -> (fewest arguments, most arguments, the function)."""


def call(name: str, args: Sequence[Any], case_insensitive: bool) -> Any:
    """SQL Server's answer of `name(args)` on values the client holds; NotLocal when the server must say."""
    _, _, function = FUNCTIONS[name]
    return function(args, case_insensitive)
