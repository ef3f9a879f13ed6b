"""SQL Server's JSON functions worked out on text the runner holds: JSON_VALUE, JSON_QUERY, JSON_MODIFY, ISJSON, OPENJSON.

SQL Server keeps JSON as text and its functions answer with pieces of that text: JSON_QUERY returns an
object or array as it is written, JSON_VALUE a number as written (`1.50`, not `1.5`), OPENJSON's
`value` the fragment of each property. TiDB parses JSON into its own binary form, which normalises
numbers, spacing and key order, so a value the runner holds (a parameter, a variable) is read here
instead, by SQL Server's rules: a document read once with the span of every value, paths in lax or
strict mode (`$.a."b c"[2]`), and SQL Server's errors where strict mode or a malformed text fails.
https://learn.microsoft.com/sql/relational-databases/json/json-path-expressions-sql-server
https://learn.microsoft.com/sql/t-sql/functions/json-modify-transact-sql
https://learn.microsoft.com/sql/t-sql/functions/openjson-transact-sql
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .failures import TsqlError


@dataclass
class Node:
    """One JSON value of a document: its kind, where it is in the text, its members or elements."""

    kind: str
    """object, array, string, number, true, false, null."""
    start: int
    end: int
    value: Any = None
    """A string's text (unescaped); a number's text as written."""
    members: list[tuple[str, Node]] = field(default_factory=list)
    elements: list[Node] = field(default_factory=list)

    @property
    def type_code(self) -> int:
        """OPENJSON's `type`: 0 null, 1 string, 2 number, 3 true/false, 4 array, 5 object."""
        return {"null": 0, "string": 1, "number": 2, "true": 3, "false": 3, "array": 4, "object": 5}[self.kind]


def _malformed(text: str, at: int) -> TsqlError:
    found = text[at] if at < len(text) else ""
    where = f"Unexpected character '{found}' is found at position {at}." if found else "Unexpected end of input."
    return TsqlError(13609, f"JSON text is not properly formatted. {where}")


_WHITE = " \t\n\r"
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class _Reader:
    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def skip(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in _WHITE:
            self.at += 1

    def value(self) -> Node:
        self.skip()
        text, at = self.text, self.at
        if at >= len(text):
            raise _malformed(text, at)
        ch = text[at]
        if ch == "{":
            return self.object()
        if ch == "[":
            return self.array()
        if ch == '"':
            start = at
            value = self.string()
            return Node("string", start, self.at, value)
        for word in ("true", "false", "null"):
            if text.startswith(word, at):
                self.at = at + len(word)
                return Node(word, at, self.at)
        m = _NUMBER.match(text, at)
        if m is None:
            raise _malformed(text, at)
        self.at = m.end()
        return Node("number", at, self.at, m[0])

    def string(self) -> str:
        text = self.text
        self.at += 1
        out: list[str] = []
        while True:
            if self.at >= len(text):
                raise _malformed(text, self.at)
            ch = text[self.at]
            if ch == '"':
                self.at += 1
                return "".join(out)
            if ch == "\\":
                nxt = text[self.at + 1: self.at + 2]
                if nxt in _ESCAPES:
                    out.append(_ESCAPES[nxt])
                    self.at += 2
                    continue
                if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[self.at + 2: self.at + 6]):
                    out.append(chr(int(text[self.at + 2: self.at + 6], 16)))
                    self.at += 6
                    continue
                raise _malformed(text, self.at)
            if ord(ch) < 0x20:
                raise _malformed(text, self.at)
            out.append(ch)
            self.at += 1

    def object(self) -> Node:
        node = Node("object", self.at, self.at)
        self.at += 1
        self.skip()
        if self.text[self.at: self.at + 1] == "}":
            self.at += 1
            node.end = self.at
            return node
        while True:
            self.skip()
            if self.text[self.at: self.at + 1] != '"':
                raise _malformed(self.text, self.at)
            key = self.string()
            self.skip()
            if self.text[self.at: self.at + 1] != ":":
                raise _malformed(self.text, self.at)
            self.at += 1
            node.members.append((key, self.value()))
            self.skip()
            ch = self.text[self.at: self.at + 1]
            self.at += 1
            if ch == "}":
                node.end = self.at
                return node
            if ch != ",":
                raise _malformed(self.text, self.at - 1)

    def array(self) -> Node:
        node = Node("array", self.at, self.at)
        self.at += 1
        self.skip()
        if self.text[self.at: self.at + 1] == "]":
            self.at += 1
            node.end = self.at
            return node
        while True:
            node.elements.append(self.value())
            self.skip()
            ch = self.text[self.at: self.at + 1]
            self.at += 1
            if ch == "]":
                node.end = self.at
                return node
            if ch != ",":
                raise _malformed(self.text, self.at - 1)


def parse(text: str) -> Node:
    """The document `text`, every value with its span; error 13609 when it is not JSON."""
    reader = _Reader(text)
    node = reader.value()
    reader.skip()
    if reader.at != len(text):
        raise _malformed(text, reader.at)
    return node


def is_json(text: Any) -> int | None:
    """ISJSON without a type constraint: 1 for an object or array, 0 otherwise, NULL for NULL."""
    if text is None:
        return None
    try:
        return 1 if parse(str(text)).kind in ("object", "array") else 0
    except TsqlError:
        return 0


# -- paths --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Path:
    steps: tuple[str | int, ...]
    """Property names and array indexes after `$`."""
    strict: bool = False
    append: bool = False


_KEY = re.compile(r"\.(?:\"((?:[^\"\\]|\\.)*)\"|([^.\[\s]+))")
_INDEX = re.compile(r"\[\s*(\d+)\s*\]")


def read_path(text: Any, modify: bool = False) -> Path:
    """`[append] [lax|strict] $.a."b c"[0]`; error 13607 when it is not a JSON path."""
    if text is None:
        raise TsqlError(13607, "JSON path is not properly formatted.")
    rest = str(text).strip()
    append = strict = False
    words = rest.split(None, 1)
    if modify and words and words[0].lower() == "append":
        append, rest = True, (words[1] if len(words) > 1 else "")
        words = rest.split(None, 1)
    if words and words[0].lower() in ("lax", "strict"):
        strict, rest = words[0].lower() == "strict", (words[1] if len(words) > 1 else "")
    rest = rest.strip()
    if not rest.startswith("$"):
        raise TsqlError(13607, f"JSON path is not properly formatted. Unexpected character '{rest[:1]}' is found at position 0.")
    at, steps = 1, []
    while at < len(rest):
        key, index = _KEY.match(rest, at), _INDEX.match(rest, at)
        if key is not None:
            steps.append(_unescape(key[1]) if key[1] is not None else key[2])
            at = key.end()
        elif index is not None:
            steps.append(int(index[1]))
            at = index.end()
        else:
            raise TsqlError(13607, f"JSON path is not properly formatted. Unexpected character '{rest[at]}' is found at "
                                   f"position {at}.")
    return Path(tuple(steps), strict, append)


def _unescape(text: str) -> str:
    return _Reader('"' + text + '"').string()


def _find(node: Node, steps: tuple[str | int, ...]) -> Node | None:
    for step in steps:
        if isinstance(step, int):
            if node.kind != "array" or step >= len(node.elements):
                return None
            node = node.elements[step]
        else:
            if node.kind != "object":
                return None
            found = next((value for key, value in node.members if key == step), None)  # the first of duplicate keys
            if found is None:
                return None
            node = found
    return node


def _missing() -> TsqlError:
    return TsqlError(13608, "Property cannot be found on the specified JSON path.")


def scalar_text(text: str, node: Node) -> str | None:
    """A scalar as JSON_VALUE and OPENJSON's `value` give it: a string unescaped, a number or literal as written."""
    if node.kind == "string":
        return node.value
    if node.kind == "null":
        return None
    return text[node.start:node.end]


def json_value(text: Any, path: Any) -> str | None:
    """JSON_VALUE: the scalar at `path` as nvarchar(4000); NULL (lax) or an error (strict) when there is none."""
    if text is None:
        return None
    document = str(text)
    found_path = read_path(path)
    node = _find(parse(document), found_path.steps)
    if node is None:
        if found_path.strict:
            raise _missing()
        return None
    if node.kind in ("object", "array"):
        if found_path.strict:
            raise TsqlError(13623, "Scalar value cannot be found in the specified JSON path.")
        return None
    value = scalar_text(document, node)
    if value is not None and len(value) > 4000:
        if found_path.strict:
            raise TsqlError(13625, "String value in the specified JSON path would be truncated.")
        return None
    return value


def json_query(text: Any, path: Any = "$") -> str | None:
    """JSON_QUERY: the object or array at `path` as it is written; NULL (lax) or an error (strict) for a scalar."""
    if text is None:
        return None
    document = str(text)
    found_path = read_path(path)
    node = _find(parse(document), found_path.steps)
    if node is None:
        if found_path.strict:
            raise _missing()
        return None
    if node.kind not in ("object", "array"):
        if found_path.strict:
            raise TsqlError(13624, "Object or array cannot be found in the specified JSON path.")
        return None
    return document[node.start:node.end]


# -- JSON_MODIFY ------------------------------------------------------------------------------------------

class Fragment(str):
    """Text that is JSON already (the result of JSON_QUERY, JSON_MODIFY or FOR JSON): JSON_MODIFY inserts it as it is,
    where it would quote and escape any other string."""


def escape(text: str) -> str:
    """A string as SQL Server writes it inside JSON (FOR JSON, JSON_MODIFY, STRING_ESCAPE): `"` `\\` `/` and the
    control characters escaped."""
    out = []
    for ch in text:
        if ch in ('"', "\\", "/"):
            out.append("\\" + ch)
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def literal(value: Any) -> str:
    """A value as JSON text: a fragment as it is, a number as a number, anything else a string."""
    if isinstance(value, Fragment):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, Decimal, float)):
        return str(value)
    return '"' + escape(str(value)) + '"'


def json_modify(text: Any, path: Any, new_value: Any) -> str | None:
    """JSON_MODIFY: the text with the value at `path` replaced, added, deleted (a NULL in lax mode) or appended to.
    The rest of the text is kept as written, as SQL Server keeps it."""
    if text is None:
        return None
    document = str(text)
    found_path = read_path(path, modify=True)
    root = parse(document)
    if not found_path.steps:
        raise TsqlError(13610, "The JSON path '$' cannot be modified.")
    parent = _find(root, found_path.steps[:-1])
    last = found_path.steps[-1]
    if parent is None:
        if found_path.strict:
            raise _missing()
        return Fragment(document)
    target = _find(parent, (last,))
    if found_path.append:
        if target is None:
            if found_path.strict:
                raise _missing()
            if new_value is None:
                return Fragment(document)
            return Fragment(_add(document, parent, last, "[" + literal(new_value) + "]"))
        if target.kind != "array":
            if found_path.strict:
                raise TsqlError(13613, "Array cannot be found in the specified JSON path.")
            return Fragment(document)
        if new_value is None:
            return Fragment(document)
        return Fragment(_add(document, target, None, literal(new_value)))
    if target is None:
        if found_path.strict:
            raise _missing()
        if new_value is None:
            return Fragment(document)
        return Fragment(_add(document, parent, last, literal(new_value)))
    if new_value is None and not found_path.strict and parent.kind == "object":
        return Fragment(_delete(document, parent, last))
    replacement = "null" if new_value is None else literal(new_value)
    return Fragment(document[:target.start] + replacement + document[target.end:])


def _add(document: str, container: Node, key: str | int | None, value: str) -> str:
    """`value` added at the end of an object (as `"key":value`) or an array, before its closing bracket."""
    if container.kind == "object":
        if not isinstance(key, str):
            return document
        item = '"' + escape(key) + '":' + value
        has = bool(container.members)
    else:
        item, has = value, bool(container.elements)
    close = container.end - 1
    return document[:close] + ("," if has else "") + item + document[close:]


def _delete(document: str, container: Node, key: str | int) -> str:
    """The property `key` taken out of an object with the comma that separated it."""
    members = container.members
    index = next(i for i, (k, _) in enumerate(members) if k == key)
    key_start = _key_start(document, container, index)
    if index + 1 < len(members):
        end = _key_start(document, container, index + 1)
        return document[:key_start] + document[end:]
    if index > 0:
        previous_end = members[index - 1][1].end
        return document[:previous_end] + document[members[index][1].end:]
    return document[:key_start] + document[members[index][1].end:]


def _key_start(document: str, container: Node, index: int) -> int:
    """Where the key of member `index` starts (its opening quote)."""
    after = container.start + 1 if index == 0 else container.members[index - 1][1].end
    return document.index('"', after)


# -- OPENJSON ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Column:
    """One column of OPENJSON's WITH clause: its name, SQL Server type, path (`$.name` by default) and AS JSON."""

    name: str
    type: str
    path: str | None = None
    as_json: bool = False


def open_json(text: Any, path: Any = None) -> list[tuple[str, str | None, int]]:
    """OPENJSON without WITH: (key, value, type) of each property of the object, or element of the array, at `path`."""
    container = _container(text, path)
    if container is None:
        return []
    document, node = container
    if node.kind == "object":
        return [(key, _text_of(document, value), value.type_code) for key, value in node.members]
    if node.kind == "array":
        return [(str(i), _text_of(document, value), value.type_code) for i, value in enumerate(node.elements)]
    raise TsqlError(13611, "Value referenced by JSON path is not an array or object and cannot be opened with OPENJSON.")


def open_json_with(text: Any, path: Any, columns: tuple[Column, ...]) -> list[tuple[Any, ...]]:
    """OPENJSON ... WITH: a row per element of the array at `path` (one row for an object), each column's value found
    by its own path, as text (the caller converts it to the column's type)."""
    container = _container(text, path)
    if container is None:
        return []
    document, node = container
    items = node.elements if node.kind == "array" else [node] if node.kind == "object" else None
    if items is None:
        raise TsqlError(13611, "Value referenced by JSON path is not an array or object and cannot be opened with OPENJSON.")
    paths = [read_path(c.path if c.path is not None else "$." + _quoted_key(c.name)) for c in columns]
    rows = []
    for item in items:
        row = []
        for column, column_path in zip(columns, paths, strict=True):
            found = _find(item, column_path.steps)
            if found is None:
                if column_path.strict:
                    raise _missing()
                row.append(None)
            elif column.as_json:
                if found.kind not in ("object", "array"):
                    if column_path.strict:
                        raise TsqlError(13624, "Object or array cannot be found in the specified JSON path.")
                    row.append(None)
                else:
                    row.append(Fragment(document[found.start:found.end]))
            elif found.kind in ("object", "array"):
                if column_path.strict:
                    raise TsqlError(13623, "Scalar value cannot be found in the specified JSON path.")
                row.append(None)
            elif found.kind in ("true", "false"):
                row.append(1 if found.kind == "true" else 0)
            else:
                row.append(scalar_text(document, found))
        rows.append(tuple(row))
    return rows


def _quoted_key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_]\w*", name) else '"' + name.replace('"', '\\"') + '"'


def _container(text: Any, path: Any) -> tuple[str, Node] | None:
    if text is None:
        return None
    document = str(text)
    root = parse(document)
    found_path = read_path(path if path is not None else "$")
    node = _find(root, found_path.steps)
    if node is None:
        if found_path.strict:
            raise _missing()
        return None
    return document, node


def _text_of(document: str, node: Node) -> str | None:
    if node.kind in ("object", "array"):
        return document[node.start:node.end]
    return scalar_text(document, node)
