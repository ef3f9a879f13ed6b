"""Each statement of a procedure body as a step: what the runner does itself, and what it sends translated.

The runner itself: DECLARE and SET of variables, `SELECT @v = ...` (its query sent, the last row
kept), PRINT, RAISERROR, THROW, transactions (BEGIN TRAN, COMMIT, ROLLBACK, SAVE TRAN, sent as
the target's), cursors (OPEN sends the query and keeps its rows; FETCH reads them), EXEC of another
procedure or of literal SQL, INSERT ... EXEC (the call's rows inserted), SET NOCOUNT, XACT_ABORT and
ROWCOUNT. Everything else goes to the translator and is sent as it writes it.

What cannot run becomes a blocker with its line: SQL built from strings at run time (`EXEC (@sql)`,
`sp_executesql @sql`), cursor variables, positioned updates (WHERE CURRENT OF), GOTO, a statement
the translator cannot write for TiDB.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from sqlglot import exp

from ..translate.batch import unreadable
from ..translate.scopes import parameter_name
from ..translate.session import SentStatement
from ..translate.statements import Statement, parse_statements
from ..tsql.fingerprint import parse_declarations
from ..tsql.literals import tokens
from . import program as p
from .dynamic_text import WRITES as DYNAMIC_WRITES
from .dynamic_text import output_names
from .expressions import RUNTIME_PREFIX
from .for_json import for_json_of
from .functions import call_of
from .history import history_of
from .json_rows import held_json
from .output import output_step, split_output
from .unit import Unit, parse_expression

_UNREADABLE_CONSTRUCTS = {"QY25": "dynamic SQL", "QY24": "procedure call", "QY11": "OUTPUT clause"}


def leaf_step(unit: Unit, statement: Statement, line: int) -> p.Step | None:
    """The step of one statement, or None when it needs nothing done (a blocker may be recorded)."""
    text = statement.sql.strip().rstrip(";").strip()
    first = re.match(r"[A-Za-z_]+", text)
    head = first[0].upper() if first else ""
    if re.search(r"\bCURRENT\s+OF\b", _code(text), re.IGNORECASE):
        unit.block("positioned update", line, "WHERE CURRENT OF changes the row a cursor stands on: the runner keeps a "
                                              "cursor's rows on the client")
        return None
    if head == "RAISERROR":
        return _raiserror(unit, text, line)
    if head in ("OPEN", "CLOSE", "DEALLOCATE"):
        return _cursor_action(unit, text, line)
    if head == "FETCH":
        return _fetch(unit, text, line)
    if head in ("INSERT", "UPDATE", "DELETE", "MERGE") and split_output(text) is not None:
        return output_step(unit, text, line, lambda tree, sql: _with_held_json(
            unit, tree, sql, line, lambda rewritten: _dml_run(unit, tree, rewritten, sql, line, keyless_delete=True)))
    if statement.error is not None or statement.tree is None:
        if head == "INSERT" and re.search(r"\bEXEC(UTE)?\b", _code(text), re.IGNORECASE):
            return _insert_exec(unit, text, line)
        if head in ("EXEC", "EXECUTE") and re.match(r"^EXEC(?:UTE)?\s*\(", text, re.IGNORECASE):
            return _exec_text(unit, text, line)
        code, message = unreadable(statement)
        unit.block(_UNREADABLE_CONSTRUCTS.get(code, "unreadable statement"), line, f"{code} {message}")
        return None
    tree = statement.tree
    if isinstance(tree, exp.Declare):
        return _declare(unit, tree, text, line)
    if isinstance(tree, exp.Command):
        return _command(unit, tree, text, line)
    if isinstance(tree, exp.Set) and len(tree.expressions) == 1 and _assigns(tree.expressions[0]):
        item = tree.expressions[0].this
        run = function_call(unit, item.expression, parameter_name(item.this).lower(), line)
        if run is not None:
            return run
    if isinstance(tree, exp.Set) and all(_assigns(i) for i in tree.expressions):
        return p.Assign(line, tuple((parameter_name(i.this.this).lower(), unit.value(i.this.expression, i.this.expression.sql("tsql"), line))
                                    for i in tree.expressions))
    if isinstance(tree, exp.Select) and tree.selects and any(_assignment(s) for s in tree.selects):
        return _assign_from_select(unit, tree, text, line)
    if isinstance(tree, (exp.Transaction, exp.Commit, exp.Rollback)):
        unit.transactions = True
        name = tree.this.name if isinstance(tree.this, exp.Expr) and tree.this.name else None
        action = "begin" if isinstance(tree, exp.Transaction) else "commit" if isinstance(tree, exp.Commit) else "rollback"
        return p.Transaction(line, action, name)
    if isinstance(tree, (exp.Execute, exp.ExecuteSql)):
        return call_step(unit, tree, text, line)
    if isinstance(tree, exp.Use):
        unit.block("USE", line, "USE switches the database inside a procedure; the runner's session stays on the target's")
        return None
    if isinstance(tree, exp.Select) and tree.args.get("for_") is not None:
        return _for_json(unit, tree, text, line)
    return _with_held_json(unit, tree, text, line, lambda rewritten: _dml_run(unit, tree, rewritten, text, line))


def _dml_run(unit: Unit, tree: exp.Expr, rewritten: exp.Expr, text: str, line: int, keyless_delete: bool = False) -> p.Run:
    """A statement sent as translated, with how the rows it changes are read (`affected`) and the history of a
    system-versioned table it writes (`history`)."""
    statements = unit.translate(rewritten, text, line)
    changes = unit.changes_of(rewritten, keyless_delete=keyless_delete)
    return p.Run(line, statements, text, unit.session_status(), writes_of(tree), changes=changes,
                 history=history_of(rewritten, changes, unit.database, unit.names))


def _for_json(unit: Unit, tree: exp.Select, text: str, line: int) -> p.Step | None:
    """`SELECT ... FOR JSON ...`: the query sent without the clause, its rows written as SQL Server's JSON (`for_json`)."""
    spec, why = for_json_of(tree, unit.session.ctx.types)
    if spec is None:
        if why is not None:
            unit.block("FOR JSON", line, why)
            return None
        return _with_held_json(unit, tree, text, line, lambda rewritten: p.Run(
            line, unit.translate(rewritten, text, line), text, unit.session_status(), writes_of(tree)))
    query = tree.copy()
    query.set("for_", None)
    return _with_held_json(unit, query, text, line, lambda rewritten: p.Run(
        line, unit.translate(rewritten, text, line), text, unit.session_status(), None, json=spec))


def _with_held_json(unit: Unit, tree: exp.Expr, text: str, line: int, make: Callable[[exp.Expr], p.Step | None]) -> p.Step | None:
    """The step of a statement, after the steps that fill a table for each OPENJSON over a held value it reads."""
    fills, rewritten = held_json(unit, tree, line)
    step = make(rewritten)
    if not fills or step is None:
        return step
    if isinstance(step, (p.Run, p.AssignFromQuery)):
        return replace(step, fills=tuple(fills))
    return p.Steps(line, (*fills, step))


def _code(text: str) -> str:
    """The text without its string literals and comments."""
    return re.sub(r"N?'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/", " ", text, flags=re.S)


def _assigns(item: exp.Expr) -> bool:
    return isinstance(item, exp.SetItem) and _assignment(item.this)


def _assignment(node: exp.Expr) -> bool:
    return isinstance(node, exp.EQ) and isinstance(node.this, exp.Parameter) and not isinstance(node.this.this, exp.Parameter)


def writes_of(tree: exp.Expr) -> str | None:
    """What a statement changes outside the session (`UPDATE Sales.Orders`), None when it reads or makes temp tables."""
    target: exp.Expr | None = None
    verb = ""
    if isinstance(tree, (exp.Insert, exp.Update, exp.Delete, exp.Merge)):
        verb = type(tree).__name__.upper()
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        if isinstance(tree, exp.Delete) and tree.args.get("tables"):
            target = tree.args["tables"][0]
    elif isinstance(tree, exp.Select) and tree.args.get("into") is not None:
        verb, target = "SELECT INTO", tree.args["into"].this
    elif isinstance(tree, (exp.Create, exp.Drop, exp.Alter, exp.TruncateTable)):
        verb = {exp.Create: "CREATE", exp.Drop: "DROP", exp.Alter: "ALTER"}.get(type(tree), "TRUNCATE")
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        if isinstance(tree, exp.Drop) and tree.args.get("tables"):
            target = tree.args["tables"][0]
        if isinstance(tree, exp.TruncateTable) and tree.expressions:
            target = tree.expressions[0]
        if isinstance(tree, exp.Create) and (tree.kind or "").upper() == "INDEX":
            index = tree.this
            target = index.args.get("table") if isinstance(index, exp.Index) else target
    else:
        return None
    if isinstance(target, exp.Table):
        ident = target.this
        if isinstance(ident, exp.Parameter) or (isinstance(ident, exp.Identifier) and (
                ident.args.get("temporary") or ident.args.get("global_"))):
            return None
        return f"{verb} {target.sql('tsql')}"
    return verb or None


def _declared_types(text: str) -> dict[str, str]:
    """Each variable's type as the DECLARE writes it (`real`, `ntext`: sqlglot writes another type's name)."""
    found: dict[str, str] = {}
    for piece in split_top_level(re.sub(r"^\s*DECLARE\b", "", text, flags=re.IGNORECASE)):
        m = re.match(r"(@[\w@#$]+)\s+(?:AS\s+)?(.*?)\s*(?:=.*)?$", piece, re.IGNORECASE | re.DOTALL)
        if m:
            found[m[1].lstrip("@").lower()] = " ".join(m[2].split())
    return found


def _declare(unit: Unit, tree: exp.Declare, text: str, line: int) -> p.Step | None:
    variables: list[tuple[str, str, p.Value | None]] = []
    tables: list[p.Step] = []
    written = _declared_types(text)
    for item in tree.expressions:
        kind = item.args.get("kind")
        for name_node in item.this if isinstance(item.this, list) else [item.this]:
            name = parameter_name(name_node) if isinstance(name_node, exp.Parameter) else name_node.name
            if isinstance(kind, exp.Schema):
                single = exp.Declare(expressions=[exp.DeclareItem(this=[name_node.copy()], kind=kind.copy())])
                tables.append(p.Run(line, unit.translate(single, text, line), text, unit.session_status()))
                continue
            type_text = written.get(name.lower()) or (kind.sql("tsql") if isinstance(kind, exp.DataType) else "")
            if re.fullmatch(r"\s*CURSOR\s*", type_text, re.IGNORECASE) or type_text.upper() == "CURSOR":
                unit.block("cursor variable", line, f"@{name} CURSOR: a cursor held in a variable; the runner keeps named "
                                                    "cursors (DECLARE name CURSOR FOR ...)")
                continue
            resolved, table_type = unit_type(unit, type_text)
            if table_type is not None:
                unit.table_types[name.lower()] = resolved
                single_text = f"DECLARE @{name} TABLE ({table_type})"
                statement = parse_statements(single_text)[0]
                if statement.tree is not None:
                    tables.append(p.Run(line, unit.translate(statement.tree, single_text, line), text, unit.session_status()))
                continue
            default = item.args.get("default")
            run = function_call(unit, default, name.lower(), line) if isinstance(default, exp.Expr) else None
            if run is not None:
                unit.declare(name, resolved)
                variables.append((name.lower(), resolved, None))
                tables.append(run)
                continue
            value = unit.value(default, default.sql("tsql"), line) if isinstance(default, exp.Expr) else None
            unit.declare(name, resolved)
            variables.append((name.lower(), resolved, value))
    steps: list[p.Step] = [p.Declare(line, tuple(variables))] if variables else []
    steps += tables
    if not steps:
        return None
    return steps[0] if len(steps) == 1 else p.Steps(line, tuple(steps))


def unit_type(unit: Unit, type_text: str) -> tuple[str, str | None]:
    """A declared type with brackets gone and an alias type resolved to its base type; for a user table type,
    its columns as a table variable declares them."""
    clean = type_text.replace("[", "").replace("]", "").strip()
    lowered = clean.lower()
    for user_type in unit.database.user_types:
        if lowered in (user_type.qualified_name.lower(), user_type.name.lower()):
            if user_type.is_table_type:
                return clean, ", ".join(f"[{c.name}] {c.type}" + (" IDENTITY(1,1)" if c.identity is not None else "")
                                        for c in user_type.columns)
            if user_type.base is not None:
                return str(user_type.base), None
    return clean, None


def function_call(unit: Unit, node: exp.Expr, target: str, line: int) -> p.Step | None:
    """`SET @v = dbo.f(args)` of a scalar function that cannot be inlined: a call the runner runs (`functions`)."""
    while isinstance(node, exp.Paren):
        node = node.this
    found = call_of(node)
    if found is None:
        return None
    function = unit.functions.find(found[0], found[1])
    if function is None or function.kind != "scalar" or function.inlined_body() is not None:
        return None
    name = function.name
    unit.calls.append(name)
    return p.CallFunction(line, name, tuple(_argument(unit, a, line) for a in found[2]), target)


def table_parameter(unit: Unit, name: str, type_text: str, line: int) -> p.TableParameter | None:
    """A table-valued parameter (`@Orders Website.OrderList READONLY`) as the table variable the runner fills."""
    clean = type_text.replace("[", "").replace("]", "").strip().casefold()
    user_type = next((t for t in unit.database.user_types if t.is_table_type
                      and clean in (t.qualified_name.casefold(), t.name.casefold())), None)
    if user_type is None:
        unit.block("table-valued parameter", line, f"{name} {type_text}: the schema has no such table type")
        return None
    columns = ", ".join(f"[{c.name}] {c.type}" + (" IDENTITY(1,1)" if c.identity is not None else "")
                        for c in user_type.columns)
    given = [c.name for c in user_type.columns if c.identity is None and c.computed is None]
    declare_text = f"DECLARE {name} TABLE ({columns})"
    for i in range(len(given)):
        unit.session.declare(f"@{RUNTIME_PREFIX}c{i}", None)
    insert_text = (f"INSERT INTO {name} ({', '.join(f'[{c}]' for c in given)}) VALUES "
                   f"({', '.join(f'@{RUNTIME_PREFIX}c{i}' for i in range(len(given)))})")
    made = []
    for text in (declare_text, insert_text):
        statement = parse_statements(text)[0]
        if statement.tree is None:
            unit.block("table-valued parameter", line, f"{name}: {statement.error}")
            return None
        made.append(unit.translate(statement.tree, text, line, "table-valued parameter"))
    declare, insert = made
    if not declare or len(insert) != 1:
        return None
    return p.TableParameter(declare, insert[0], len(given))


def _assign_from_select(unit: Unit, tree: exp.Select, text: str, line: int) -> p.Step | None:
    if not all(_assignment(s) for s in tree.selects):
        unit.block("mixed SELECT", line, "a SELECT that assigns variables and returns columns (SQL Server refuses it too)")
        return None
    names = tuple(parameter_name(s.this).lower() for s in tree.selects)
    if tree.args.get("from_") is None and not tree.args.get("where") and len(names) == 1:
        run = function_call(unit, tree.selects[0].expression, names[0], line)
        if run is not None:
            return run
    if tree.args.get("from_") is None and not tree.args.get("where"):
        return p.Assign(line, tuple((name, unit.value(s.expression, s.expression.sql("tsql"), line))
                                    for name, s in zip(names, tree.selects, strict=True)), select=True)
    for s in tree.selects:
        used = {parameter_name(n).lower() for n in s.expression.find_all(exp.Parameter)
                if not isinstance(n.this, exp.Parameter)}
        if used & set(names):
            unit.block("assignment over rows", line, "SELECT @v = @v + ... FROM: a variable built up row by row over the "
                                                     "rows of a query; the application must do it in its loop")
            return None
    query = tree.copy()
    query.set("expressions", [s.expression.copy() for s in tree.selects])
    return _with_held_json(unit, query, text, line,
                           lambda rewritten: p.AssignFromQuery(line, names, unit.translate(rewritten, text, line), text))


def _command(unit: Unit, tree: exp.Command, text: str, line: int) -> p.Step | None:
    word = (tree.this if isinstance(tree.this, str) else tree.name).upper()
    rest = tree.expression.name if isinstance(tree.expression, exp.Expr) else str(tree.expression or "")
    if word == "DECLARE" and re.search(r"\bCURSOR\b", rest, re.IGNORECASE):
        return _cursor_declare(unit, text, line)
    if word == "SET":
        return _set_option(unit, tree, rest, text, line)
    if word == "PRINT":
        node = parse_expression(rest)
        if node is None:
            unit.block("unreadable statement", line, f"PRINT {rest[:60]}: the expression could not be read")
            return None
        return p.Print(line, unit.value(node, rest, line))
    if word == "THROW":
        if not rest.strip():
            return p.Raise(line, "rethrow")
        values = _arguments(unit, rest, line)
        return p.Raise(line, "throw", tuple(values)) if values is not None and len(values) == 3 else _unreadable(unit, text, line)
    if word == "SAVE":
        unit.transactions = True
        name = rest.split()[-1] if rest.split() else "sp"
        return p.Transaction(line, "save", name)
    if word == "BEGIN":
        unit.block("distributed transaction" if "DISTRIBUTED" in rest.upper() else f"BEGIN {rest.split()[0] if rest else ''}".strip(),
                   line, f"BEGIN {rest}: no counterpart on one MySQL-protocol connection")
        return None
    return p.Run(line, unit.translate(tree, text, line), text, unit.session_status(), writes_of(tree))


def _unreadable(unit: Unit, text: str, line: int) -> None:
    unit.block("unreadable statement", line, f"`{text[:80]}` could not be read")
    return None


_OPTIONS = {"NOCOUNT", "XACT_ABORT"}


def _set_option(unit: Unit, tree: exp.Command, rest: str, text: str, line: int) -> p.Step | None:
    words = rest.replace(",", " ").split()
    if words and words[0].startswith("@"):
        if re.search(r"=\s*CURSOR\b", rest, re.IGNORECASE):
            unit.block("cursor variable", line, "SET @c = CURSOR FOR ...: a cursor held in a variable")
        else:
            _unreadable(unit, text, line)
        return None
    upper = [w.upper() for w in words]
    if len(upper) == 2 and upper[0] in _OPTIONS and upper[1] in ("ON", "OFF"):
        return p.Option(line, upper[0], upper[1] == "ON")
    if upper[:1] == ["ROWCOUNT"] and len(words) == 2:
        node = parse_expression(words[1])
        if node is not None:
            return p.Option(line, "ROWCOUNT", True, unit.value(node, words[1], line))
    return p.Run(line, unit.translate(tree, text, line), text, unit.session_status())


def _arguments(unit: Unit, text: str, line: int) -> list[p.Value] | None:
    """Comma-separated expressions (THROW's, RAISERROR's), each as a value."""
    values = []
    for piece in split_top_level(text):
        node = parse_expression(piece)
        if node is None:
            return None
        values.append(unit.value(node, piece, line))
    return values


def split_top_level(text: str) -> list[str]:
    """`a, f(b, c), 'x,y'` -> ['a', 'f(b, c)', "'x,y'"]: the commas outside parentheses and strings."""
    pieces, depth, start = [], 0, 0
    for tok in tokens(text):
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
        elif tok.text == "," and depth == 0:
            pieces.append(text[start:tok.start].strip())
            start = tok.start + 1
    pieces.append(text[start:].strip())
    return [piece for piece in pieces if piece]


def _raiserror(unit: Unit, text: str, line: int) -> p.Step | None:
    m = re.match(r"RAISERROR\s*\((.*)\)\s*(?:WITH\s+[\w\s,]+)?$", text, re.IGNORECASE | re.DOTALL)
    if m is None:
        unit.block("unreadable statement", line, "RAISERROR without parentheses (the form before SQL Server 2012) is not read")
        return None
    values = _arguments(unit, m[1], line)
    if values is None or len(values) < 3:
        return _unreadable(unit, text, line)
    return p.Raise(line, "raiserror", tuple(values))


_CURSOR = re.compile(r"^DECLARE\s+(?P<name>[\w#$\[\]\"]+)\s+(?P<before>(?:INSENSITIVE\s+|SCROLL\s+)*)CURSOR\b"
                     r"(?P<options>.*?)\bFOR\b(?P<query>.*)$", re.IGNORECASE | re.DOTALL)
_CURSOR_END = re.compile(r"\bFOR\s+(?:READ\s+ONLY|UPDATE(?:\s+OF\s+.*)?)\s*$", re.IGNORECASE | re.DOTALL)


def _cursor_declare(unit: Unit, text: str, line: int) -> p.Step | None:
    m = _CURSOR.match(text)
    if m is None:
        return _unreadable(unit, text, line)
    query = _CURSOR_END.sub("", m["query"]).strip()
    statements = parse_statements(query)
    if len(statements) != 1 or statements[0].tree is None or not isinstance(statements[0].tree, exp.Query):
        unit.block("cursor", line, f"the cursor's query could not be read: {query[:80]}")
        return None
    scroll = "SCROLL" in (m["before"] + m["options"]).upper() or "STATIC" in m["options"].upper() \
        or "KEYSET" in m["options"].upper() or "DYNAMIC" in m["options"].upper()
    return p.CursorDeclare(line, _name(m["name"]), unit.translate(statements[0].tree, query, line), query, scroll)


def _name(text: str) -> str:
    return text.strip().strip("[]\"").lower()


def _cursor_action(unit: Unit, text: str, line: int) -> p.Step | None:
    m = re.match(r"^(OPEN|CLOSE|DEALLOCATE)\s+(?:GLOBAL\s+)?(\S+)$", text, re.IGNORECASE)
    if m is None:
        return _unreadable(unit, text, line)
    if m[2].startswith("@"):
        unit.block("cursor variable", line, f"{m[1].upper()} {m[2]}: a cursor held in a variable")
        return None
    return p.CursorAction(line, m[1].lower(), _name(m[2]))


_FETCH = re.compile(r"^FETCH\s+(?:(?P<dir>NEXT|PRIOR|FIRST|LAST|ABSOLUTE|RELATIVE)\s+(?P<n>(?:(?!FROM\b)\S)+\s+)?)?"
                    r"(?:FROM\s+)?(?:GLOBAL\s+)?(?P<name>[^\s,]+)(?:\s+INTO\s+(?P<into>.*))?$", re.IGNORECASE | re.DOTALL)


def _fetch(unit: Unit, text: str, line: int) -> p.Step | None:
    m = _FETCH.match(text)
    if m is None:
        return _unreadable(unit, text, line)
    if m["name"].startswith("@"):
        unit.block("cursor variable", line, f"FETCH from {m['name']}: a cursor held in a variable")
        return None
    direction = (m["dir"] or "NEXT").upper()
    offset = None
    if direction in ("ABSOLUTE", "RELATIVE"):
        node = parse_expression(m["n"] or "") if m["n"] else None
        if node is None:
            return _unreadable(unit, text, line)
        offset = unit.value(node, m["n"].strip(), line)
    into = tuple(v.strip().lstrip("@").lower() for v in (m["into"] or "").split(",") if v.strip())
    return p.CursorAction(line, "fetch", _name(m["name"]), direction, offset, into)


def call_step(unit: Unit, tree: exp.Expr, text: str, line: int) -> p.Step | None:
    """EXEC of a procedure, of sp_executesql with literal SQL, or of a literal string."""
    target = tree.this
    args = list(tree.expressions)
    if isinstance(tree, exp.ExecuteSql) or (isinstance(target, exp.Table) and target.name.lower() == "sp_executesql"):
        body = args[0] if args else None
        named = [a for a in args if isinstance(a, exp.EQ) and isinstance(a.this, exp.Parameter)]
        if body is None or named and named[0] is body:
            return _unreadable(unit, text, line)
        literal = isinstance(body, exp.National) or (isinstance(body, exp.Literal) and body.is_string)
        rest = args[1:]
        declarations = rest[0] if rest and not (isinstance(rest[0], exp.EQ) or isinstance(rest[0], exp.Alias)) else None
        if declarations is not None:
            rest = rest[1:]
        declared_literal = declarations is None or isinstance(declarations, exp.National) or (
            isinstance(declarations, exp.Literal) and declarations.is_string)
        arguments = tuple(_argument(unit, a, line) for a in rest)
        if literal and declared_literal:
            text_of = declarations.name if declarations is not None else ""
            return p.CallText(line, unit.nested(body.name, parse_declarations(text_of) if text_of else (), line,
                                                output_names(text_of)), arguments)
        return _dynamic(unit, body, declarations, arguments, line)
    if isinstance(target, exp.Subquery):
        return _exec_text(unit, text, line)
    if not isinstance(target, exp.Table):
        return _unreadable(unit, text, line)
    name = ".".join(part.name for part in (target.args.get("catalog"), target.args.get("db"), target.this)
                    if isinstance(part, exp.Expr) and part.name)
    unit.calls.append(name)
    status = tree.args.get("return_status")
    status_name = parameter_name(status).lower() if isinstance(status, exp.Parameter) else None
    return p.Call(line, name, tuple(_argument(unit, a, line) for a in args), status_name)


def _exec_text(unit: Unit, text: str, line: int) -> p.Step | None:
    """`EXEC ('...')` of literal SQL, or `EXEC (@sql)` / `EXEC (N'...' + @t)` of SQL built at run time."""
    m = re.match(r"^EXEC(?:UTE)?\s*\(\s*((?:N?'(?:[^']|'')*'\s*\+?\s*)+)\)\s*$", text, re.IGNORECASE | re.DOTALL)
    if m is not None:
        literal = "".join(piece[1:-1].replace("''", "'") for piece in re.findall(r"'(?:[^']|'')*'", m[1]))
        return p.CallText(line, unit.nested(literal, (), line))
    inside = re.match(r"^EXEC(?:UTE)?\s*\((.*)\)\s*$", text, re.IGNORECASE | re.DOTALL)
    node = parse_expression(inside[1]) if inside else None
    if node is None:
        unit.block("dynamic SQL", line, "EXEC (...): the expression of its SQL could not be read (EXEC ... AT a linked "
                                        "server or AS USER has no counterpart)")
        return None
    return _dynamic(unit, node, None, (), line)


def _dynamic(unit: Unit, text: exp.Expr, declarations: exp.Expr | None, arguments: tuple[p.Argument, ...],
             line: int) -> p.Step:
    """SQL built at run time: translated when the call reaches it (`dynamic`)."""
    value = unit.value(text, text.sql("tsql"), line)
    declared = unit.value(declarations, declarations.sql("tsql"), line) if declarations is not None else None
    return p.DynamicText(line, value, declared, arguments, DYNAMIC_WRITES)


def _argument(unit: Unit, node: exp.Expr, line: int) -> p.Argument:
    output: str | None = None
    if isinstance(node, exp.Alias) and node.alias.upper() in ("OUT", "OUTPUT"):
        node = node.this
        inner = node.expression if isinstance(node, exp.EQ) else node
        if isinstance(inner, exp.Parameter):
            output = parameter_name(inner).lower()
    name: str | None = None
    if isinstance(node, exp.EQ) and isinstance(node.this, exp.Parameter):
        name = "@" + parameter_name(node.this)
        node = node.expression
    if isinstance(node, exp.Column) and node.name.upper() == "DEFAULT" and not node.table:
        return p.Argument(name, None, output)
    if isinstance(node, exp.Parameter) and parameter_name(node).lower() in unit.table_types:
        return p.Argument(name, None, output, _table_rows(unit, parameter_name(node), line))
    return p.Argument(name, unit.value(node, node.sql("tsql"), line), output)


def _table_rows(unit: Unit, variable: str, line: int) -> tuple[SentStatement, ...]:
    """The rows of a table variable of a table type, as a table-valued parameter takes them (its identity left out)."""
    type_name = unit.table_types[variable.lower()].casefold()
    user_type = next((t for t in unit.database.user_types if type_name in (t.qualified_name.casefold(), t.name.casefold())),
                     None)
    columns = [c.name for c in user_type.columns if c.identity is None and c.computed is None] if user_type else []
    text = f"SELECT {', '.join(f'[{c}]' for c in columns) or '*'} FROM @{variable}"
    statement = parse_statements(text)[0]
    return unit.translate(statement.tree, text, line) if statement.tree is not None else ()


_INSERT_EXEC = re.compile(r"^INSERT\s+(?:INTO\s+)?(?P<table>(?:\[[^\]]*\]|\"[^\"]*\"|[\w@#$]+)(?:\s*\.\s*(?:\[[^\]]*\]|\"[^\"]*\"|[\w@#$]+))*)"
                          r"\s*(?:WITH\s*\((?:[^()]|\([^()]*\))*\))?"
                          r"\s*(?:\((?P<columns>[^()]*)\))?\s*(?P<call>EXEC(?:UTE)?\b.*)$", re.IGNORECASE | re.DOTALL)


def _insert_exec(unit: Unit, text: str, line: int) -> p.Step | None:
    m = _INSERT_EXEC.match(text)
    if m is None:
        return _unreadable(unit, text, line)
    calls = parse_statements(m["call"])
    if len(calls) != 1 or not isinstance(calls[0].tree, (exp.Execute, exp.ExecuteSql)):
        unit.block("procedure call", line, f"INSERT ... {m['call'][:60]}: the call could not be read")
        return None
    call = call_step(unit, calls[0].tree, m["call"], line)
    if call is None:
        return None
    columns = [c.strip() for c in (m["columns"] or "").split(",") if c.strip()] or unit.table_columns(m["table"])
    if not columns:
        unit.block("INSERT ... EXEC", line, f"the columns of {m['table']} are not known: name them in the INSERT")
        return None
    markers = ", ".join(f"@{RUNTIME_PREFIX}c{i}" for i in range(len(columns)))
    for i in range(len(columns)):
        unit.session.declare(f"@{RUNTIME_PREFIX}c{i}", None)
    insert_text = f"INSERT INTO {m['table']} ({', '.join(columns)}) VALUES ({markers})"
    statement = parse_statements(insert_text)[0]
    if statement.tree is None:
        return _unreadable(unit, text, line)
    insert = unit.translate(statement.tree, insert_text, line)
    return p.InsertFromCall(line, call, insert, len(columns), text, writes_of(statement.tree))
