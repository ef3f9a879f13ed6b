"""Unwraps the driver calls that carry parameterised SQL, so a capture shows the statement, not the RPC.

Client drivers rarely send `SELECT ... WHERE id = 5`. .NET sends `exec sp_executesql N'SELECT ...
@id',N'@id int',5`; ODBC and JDBC prepare once (`sp_prepexec`, `sp_prepare`) and then run
`sp_execute 7,5` with only a handle and the values; server cursors go through `sp_cursoropen` and
`sp_cursorprepexec`; stored procedures arrive as `exec dbo.P @a=1`. An Extended Events capture
records these calls as T-SQL text, so this module reads that text back: the statement, its
declared parameters and the literal values of this execution, with a handle map per session so an
`sp_execute` finds the statement its session prepared earlier.
(https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-executesql-transact-sql,
https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-prepexec-transact-sql,
https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-execute-transact-sql,
https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-cursoropen-transact-sql)

    >>> call = Unwrapper().unwrap("exec sp_executesql N'SELECT * FROM t WHERE id = @id',N'@id int',5")
    >>> call.statement, call.values
    ('SELECT * FROM t WHERE id = @id', (5,))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from ..model.workload import Parameter, Scalar
from ..tsql.fingerprint import parse_declarations as _parse_declarations
from ..tsql.fingerprint import strip_parameter_prefix
from ..tsql.literals import NotALiteral, Token, literal_value, tokens, typed_value

# A driver sends the same declaration list with every call of a statement.
parse_declarations = lru_cache(maxsize=4096)(_parse_declarations)

@dataclass(frozen=True)
class Arg:
    """One argument of an EXEC: `@name = value OUTPUT`, with the value read when it is a literal."""

    name: str | None
    tokens: tuple[Token, ...]
    output: bool = False

    @property
    def variable(self) -> str | None:
        """The variable passed (`@p1` in `@p1 output`), or None for a literal or expression."""
        return self.tokens[0].text if len(self.tokens) == 1 and self.tokens[0].kind == "var" else None

    def value(self) -> Scalar:
        return literal_value(list(self.tokens))

    def text(self) -> str | None:
        """The string an argument holds (`N'...'`), or None when it is not a string literal."""
        if len(self.tokens) == 1 and self.tokens[0].kind == "str":
            value = self.value()
            return value if isinstance(value, str) else None
        return None


@dataclass(frozen=True)
class ExecCall:
    """`EXEC name args` as found in an RPC's text, with the `set @p1=5` assignments around it."""

    procedure: str
    args: tuple[Arg, ...]
    assigned: dict[str, Scalar]
    """Values given to variables before the call (`set @p1=5`): the handle a prepare returned."""
    start: int
    end: int


_STATEMENT_WORDS = {
    "SELECT", "DECLARE", "SET", "EXEC", "EXECUTE", "IF", "INSERT", "UPDATE", "DELETE", "MERGE", "WITH",
    "BEGIN", "COMMIT", "ROLLBACK", "PRINT", "RETURN", "USE", "GO", "WHILE", "CREATE", "ALTER", "DROP",
}


def parse_exec(text: str) -> ExecCall | None:
    """Find the first `EXEC[UTE] [@ret =] name arg, ...` in `text`; None when there is none."""
    toks = tokens(text)
    assigned: dict[str, Scalar] = {}
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.kind == "word" and tok.upper == "SET" and i + 2 < len(toks) and toks[i + 1].kind == "var" \
                and toks[i + 2].text == "=":
            j = i + 3
            sign = [toks[j]] if j < len(toks) and toks[j].text in ("-", "+") else []
            k = j + len(sign)
            try:
                assigned[toks[i + 1].text.casefold()] = literal_value([*sign, toks[k]]) if k < len(toks) else None
            except NotALiteral:
                pass
            i = k + 1
            continue
        if tok.kind == "word" and tok.upper in ("EXEC", "EXECUTE"):
            return _parse_call(text, toks, i, assigned)
        i += 1
    return None


def _parse_call(text: str, toks: list[Token], i: int, assigned: dict[str, Scalar]) -> ExecCall | None:
    start = toks[i].start
    i += 1
    if i + 1 < len(toks) and toks[i].kind == "var" and toks[i + 1].text == "=":
        i += 2  # `EXEC @rc = dbo.P`: the return-code variable is not part of the call
    parts: list[str] = []
    while i < len(toks) and toks[i].kind in ("word", "ident"):
        tok = toks[i]
        parts.append(tok.text[1:-1].replace("]]", "]") if tok.kind == "ident" else tok.text)
        i += 1
        if i < len(toks) and toks[i].text == ".":
            i += 1
            while i < len(toks) and toks[i].text == ".":  # `msdb..sp_who`: the default schema
                parts.append("")
                i += 1
            continue
        break
    if not parts:
        return None
    args: list[Arg] = []
    current: list[Token] = []
    depth = 0
    after_comma = False
    end = toks[i - 1].start + len(toks[i - 1].text)
    while i < len(toks):
        tok = toks[i]
        if depth == 0 and tok.text == ";":
            break
        if depth == 0 and tok.kind == "word" and tok.upper in _STATEMENT_WORDS and (
                (not current and not after_comma) or (current and _complete(current))):
            break  # the next statement of the batch (`select @p1` after a prepare)
        if depth == 0 and tok.text == "," and current:
            args.append(_arg(current))
            current = []
            after_comma = True
        else:
            depth += 1 if tok.text == "(" else -1 if tok.text == ")" else 0
            current.append(tok)
        end = tok.start + len(tok.text)
        i += 1
    if current:
        args.append(_arg(current))
    return ExecCall(".".join(parts), tuple(args), assigned, start, end)


def _complete(current: list[Token]) -> bool:
    """Whether the tokens gathered so far already make a whole argument (a statement word may follow)."""
    last = current[-1]
    return last.kind in ("str", "num", "bin", "var", "ident") or last.text == ")" or (
        last.kind == "word" and last.upper in ("OUTPUT", "OUT", "NULL", "DEFAULT"))


def _arg(toks: list[Token]) -> Arg:
    name = None
    if len(toks) >= 2 and toks[0].kind == "var" and toks[1].text == "=":
        name, toks = toks[0].text, toks[2:]
    output = bool(toks) and toks[-1].kind == "word" and toks[-1].upper in ("OUTPUT", "OUT")
    if output:
        toks = toks[:-1]
    return Arg(name, tuple(toks), output)


def procedure_name(statement: str) -> str | None:
    """The procedure an `EXEC dbo.P ...` statement calls (`dbo.P`), None for anything else."""
    head = statement.lstrip()[:10].upper()
    if not (head.startswith("EXEC ") or head.startswith("EXECUTE") or head.startswith("EXEC[") or
            head.startswith("EXEC\n") or head.startswith("EXEC\t")):
        return None
    call = parse_exec(statement)
    return call.procedure if call else None


Problem = Literal["unknown_handle", "unreadable"]


@dataclass(frozen=True)
class Call:
    """What one RPC or statement text ran: the statement with its parameters and this call's values.

    `statement` is None when the call runs nothing worth a query class (`sp_prepare`,
    `sp_cursorfetch`, `sp_reset_connection`) or could not be read (`problem` says why).
    """

    statement: str | None
    parameters: tuple[Parameter, ...] = ()
    values: tuple[Scalar, ...] = ()
    wrapper: str | None = None
    """The system procedure that carried the statement (`sp_executesql`), None for plain SQL or a procedure."""
    procedure: str | None = None
    problem: Problem | None = None
    detail: str = ""


@dataclass(frozen=True)
class _Prepared:
    statement: str
    parameters: tuple[Parameter, ...]


# Calls that move a cursor or reset a pooled connection; they run no statement of their own.
_NO_STATEMENT = {
    "sp_cursorfetch", "sp_cursorclose", "sp_cursoroption", "sp_cursor", "sp_reset_connection",
    "sp_unprepare", "sp_cursorunprepare",
}
_WRAPPERS = {
    "sp_executesql", "sp_prepexec", "sp_prepare", "sp_execute", "sp_cursoropen", "sp_cursorprepexec",
    "sp_cursorprepare", "sp_cursorexecute", "sp_prepexecrpc", *_NO_STATEMENT,
}


def wrapper_name(procedure: str) -> str | None:
    """`sys.sp_executesql` -> `sp_executesql`; None when the procedure is not a driver wrapper."""
    last = procedure.rsplit(".", 1)[-1].lower()
    schema = procedure.rsplit(".", 1)[0].lower() if "." in procedure else "sys"
    return last if last in _WRAPPERS and schema.endswith("sys") else None


class Unwrapper:
    """Reads RPC texts in capture order, keeping each session's prepared handles.

    Handles are per connection on SQL Server, so the map is keyed by session id; an `sp_execute`
    on another session never resolves to this session's statement.
    """

    def __init__(self) -> None:
        self._handles: dict[tuple[int | None, int], _Prepared] = {}
        self._unnumbered: dict[int | None, list[_Prepared]] = {}

    def unwrap(self, text: str, session_id: int | None = None, sql_text: str | None = None) -> Call:
        """The statement `text` runs. `sql_text` is the XE action of the same name, when captured."""
        stripped = text.lstrip()
        first = stripped[:12].upper()
        if not (first.startswith(("EXEC", "DECLARE", "SET ", "SP_")) or stripped.startswith("[")):
            return Call(text.strip())
        call = parse_exec(text) if not first.startswith("SP_") else parse_exec("EXEC " + stripped)
        if call is None:
            return Call(text.strip())
        wrapper = wrapper_name(call.procedure)
        if wrapper is None:
            return Call(text[call.start:call.end].strip(), procedure=call.procedure)
        if wrapper in _NO_STATEMENT:
            if wrapper in ("sp_unprepare", "sp_cursorunprepare") and call.args:
                self._forget(session_id, call.args[0])
            return Call(None, wrapper=wrapper)
        try:
            return self._dispatch(wrapper, call, session_id, sql_text)
        except NotALiteral as exc:
            return Call(None, wrapper=wrapper, problem="unreadable", detail=f"argument {exc} is not a literal")
        except (IndexError, TypeError):
            return Call(None, wrapper=wrapper, problem="unreadable", detail="too few or malformed arguments")

    def _dispatch(self, wrapper: str, call: ExecCall, session: int | None, sql_text: str | None) -> Call:
        args = call.args
        if wrapper == "sp_executesql":
            statement = _text_arg(args, 0, "@stmt")
            decls = _text_arg(args, 1, "@params", required=False) or ""
            params = parse_declarations(decls)
            named = [a for a in args if a.name and a.name.casefold() not in ("@stmt", "@params")]
            positional = [a for a in args[2 if decls or len(args) > 1 else 1:] if a.name is None]
            return self._call(statement, params, named or positional, wrapper)
        if wrapper in ("sp_prepexec", "sp_prepare", "sp_cursorprepare", "sp_cursorprepexec"):
            offset = 1 if wrapper == "sp_cursorprepexec" else 0  # its second argument is the cursor
            decls = _text_arg(args, 1 + offset, None, required=False) or ""
            statement = _text_arg(args, 2 + offset, None)
            params = parse_declarations(decls)
            self._remember(session, args[0], call, _Prepared(statement, params))
            if wrapper in ("sp_prepare", "sp_cursorprepare"):
                return Call(None, wrapper=wrapper)
            values = args[3:] if wrapper == "sp_prepexec" else _trailing(args, params)
            return self._call(statement, params, values, wrapper)
        if wrapper in ("sp_execute", "sp_cursorexecute"):
            prepared = self._resolve(session, args[0], sql_text)
            if prepared is None:
                return Call(None, wrapper=wrapper, problem="unknown_handle",
                            detail=f"handle {args[0].tokens[0].text if args[0].tokens else '?'}")
            values = args[1:] if wrapper == "sp_execute" else _trailing(args[2:], prepared.parameters)
            return self._call(prepared.statement, prepared.parameters, values, wrapper)
        if wrapper == "sp_cursoropen":
            statement = _text_arg(args, 1, None)
            # With PARAMETERIZED_STMT the declarations follow scrollopt, ccopt and rowcount, then the values.
            for index in range(2, len(args)):
                decls = args[index].text()
                if decls is not None and decls.lstrip().startswith("@"):
                    params = parse_declarations(decls)
                    return self._call(statement, params, args[index + 1:], wrapper)
            return self._call(statement, (), (), wrapper)
        return Call(None, wrapper=wrapper, problem="unreadable", detail=f"{wrapper} calls are not unwrapped")

    def _call(self, statement: str, params: tuple[Parameter, ...], args, wrapper: str) -> Call:
        values = _bind(params, list(args))
        return Call(statement.strip(), params, values, wrapper)

    def _remember(self, session: int | None, handle_arg: Arg, call: ExecCall, prepared: _Prepared) -> None:
        handle = _handle_of(handle_arg, call.assigned)
        if handle is None:
            self._unnumbered.setdefault(session, []).append(prepared)
        else:
            self._handles[(session, handle)] = prepared

    def _forget(self, session: int | None, handle_arg: Arg) -> None:
        try:
            handle = handle_arg.value()
        except NotALiteral:
            return
        if isinstance(handle, int):
            self._handles.pop((session, handle), None)

    def _resolve(self, session: int | None, handle_arg: Arg, sql_text: str | None) -> _Prepared | None:
        if sql_text:
            decls, body = strip_parameter_prefix(sql_text)
            if decls:
                return _Prepared(body.strip(), parse_declarations(decls))
        try:
            handle = handle_arg.value()
        except NotALiteral:
            handle = None
        if isinstance(handle, int) and (session, handle) in self._handles:
            return self._handles[(session, handle)]
        # The capture showed the prepare but not the handle it returned (XE renders `@p1 output`
        # without the value). With exactly one such statement on the session, it is the one.
        pending = self._unnumbered.get(session, [])
        if isinstance(handle, int) and len(pending) == 1:
            prepared = pending.pop()
            self._handles[(session, handle)] = prepared
            return prepared
        return None


def _handle_of(arg: Arg, assigned: dict[str, Scalar]) -> int | None:
    variable = arg.variable
    value = assigned.get(variable.casefold()) if variable else None
    # Profiler-style text shows `set @p1=NULL` or `-1` before the call when the handle is not yet known.
    return value if isinstance(value, int) and value > 0 else None


def _text_arg(args: tuple[Arg, ...], index: int, name: str | None, *, required: bool = True) -> str | None:
    """A string argument by name (`@stmt=`) or position."""
    if name is not None:
        for a in args:
            if a.name and a.name.casefold() == name:
                return a.text()
    if index < len(args) and args[index].name is None:
        value = args[index].text()
        if value is not None or not required:
            return value
        if len(args[index].tokens) == 1 and args[index].tokens[0].upper == "NULL":
            return None
    if required:
        raise TypeError("missing statement argument")
    return None


def _trailing(args, params: tuple[Parameter, ...]) -> list[Arg]:
    """The last len(params) arguments: cursor calls put scroll and concurrency options before the values."""
    args = list(args)
    named = [a for a in args if a.name and any(p.name.casefold() == a.name.casefold() for p in params)]
    if named:
        return named
    return args[max(0, len(args) - len(params)):] if params else []


def _bind(params: tuple[Parameter, ...], args: list[Arg]) -> tuple[Scalar, ...]:
    """Values in declaration order from positional or `@P1=` arguments; missing ones are NULL."""
    by_name = {p.name.casefold(): i for i, p in enumerate(params)}
    values: list[Scalar] = [None] * len(params)
    position = 0
    for arg in args:
        if arg.output and arg.variable:
            position += 1
            continue
        index = by_name.get(arg.name.casefold()) if arg.name else position
        position += 1
        if index is None or index >= len(params):
            continue
        # An OUTPUT parameter passes a variable, whose value the text does not show.
        values[index] = None if arg.variable else typed_value(arg.value(), params[index].type)
    return tuple(values)
