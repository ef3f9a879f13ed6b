"""User-defined functions a procedure calls: inlined into its statements where T-SQL lets them be, run otherwise.

TiDB has no user-defined functions, so a statement that calls one must carry its meaning itself:

- a scalar function whose body works its value out without side effects — DECLAREs, SETs, `SELECT @v =
  ... FROM ...`, IF, and a RETURN at the end — is inlined as one expression, as SQL Server 2019 inlines
  such functions itself: each variable becomes the expression of its value (a SELECT assignment the
  scalar subquery of its row, a variable an IF sets a CASE), the parameters the call's arguments
  converted to their declared types, and the whole cast to the RETURNS type;
- an inline table-valued function (`RETURNS TABLE AS RETURN SELECT ...`) becomes a derived table of
  its query, the arguments in place of its parameters;
- any other scalar function (a WHILE, a cursor, a table variable) is run by the runner, as it runs a
  procedure, where a statement only assigns its value (`SET @v = dbo.f(@a)`); inside a set-based
  statement it is a blocker with the statement's line.
https://learn.microsoft.com/sql/relational-databases/user-defined-functions/scalar-udf-inlining
https://learn.microsoft.com/sql/t-sql/statements/create-function-transact-sql
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from ..model import Database, Module
from ..translate.dialect import SqlServer
from ..translate.scopes import parameter_name
from ..tsql.literals import Token, tokens
from . import blocks
from .header import line_at


class NotInlinable(Exception):
    """Why a function's body cannot be one expression."""


@dataclass(frozen=True)
class FunctionParameter:
    name: str
    """Lower case, without `@`."""
    type: str
    default: str | None = None


@dataclass
class Function:
    """A user-defined function as the runner reads it."""

    module: Module
    parameters: tuple[FunctionParameter, ...]
    returns: str | None
    """The scalar type it returns; None for a table-valued function."""
    kind: str
    """scalar, inline (RETURNS TABLE AS RETURN SELECT) or table (RETURNS @t TABLE ... BEGIN ... END)."""
    body: str
    body_line: int
    null_on_null: bool = False
    _expression: exp.Expr | None = field(default=None, repr=False)
    _query: exp.Expr | None = field(default=None, repr=False)
    why_not: str | None = None
    """Why it cannot be inlined (None: it can, or it was not tried yet)."""
    _tried: bool = False

    @property
    def name(self) -> str:
        return self.module.qualified_name

    def inlined_body(self) -> exp.Expr | None:
        """The scalar body as one expression over `@parameter`s, or None (`why_not` says why)."""
        if not self._tried:
            self._tried = True
            try:
                if self.kind == "scalar":
                    self._expression = _scalar_expression(self)
                elif self.kind == "inline":
                    self._query = _inline_query(self)
                else:
                    raise NotInlinable("a multi-statement table-valued function fills a table variable")
            except NotInlinable as exc:
                self.why_not = str(exc)
        return self._expression if self.kind == "scalar" else self._query


class HeadError(ValueError):
    pass


def read_function(module: Module) -> Function:
    """The head of CREATE FUNCTION: its parameters, what it returns and where its body starts."""
    text = module.definition or ""
    toks = tokens(text)
    i = 0
    words = [t.upper for t in toks[:4]]
    if words[:3] == ["CREATE", "OR", "ALTER"]:
        i = 3
    elif words[:1] in (["CREATE"], ["ALTER"]):
        i = 1
    if i >= len(toks) or toks[i].upper != "FUNCTION":
        raise HeadError("the definition does not start with CREATE FUNCTION")
    i += 1
    while i < len(toks) and (toks[i].kind in ("word", "ident") or toks[i].text == "."):
        i += 1
    parameters, i = _parameters(text, toks, i)
    if i >= len(toks) or toks[i].upper != "RETURNS":
        raise HeadError("no RETURNS clause")
    i += 1
    returns: str | None = None
    kind = "scalar"
    if toks[i].upper == "TABLE":
        kind, i = "inline", i + 1
    elif toks[i].kind == "var":
        kind = "table"
        i += 1
        if toks[i].upper == "TABLE":
            i += 1
        i = _skip_parentheses(toks, i)
    else:
        start = i
        while i < len(toks) and toks[i].upper not in ("WITH", "AS"):
            i = _skip_parentheses(toks, i + 1) if i + 1 < len(toks) and toks[i + 1].text == "(" else i + 1
        returns = text[toks[start].start:toks[i - 1].start + len(toks[i - 1].text)].replace("[", "").replace("]", "")
    null_on_null = False
    if i < len(toks) and toks[i].upper == "WITH":
        while i < len(toks) and toks[i].upper != "AS":
            if toks[i].upper == "RETURNS" and i + 1 < len(toks) and toks[i + 1].upper == "NULL":
                null_on_null = True
            if toks[i].upper in ("EXECUTE", "EXEC") and i + 1 < len(toks) and toks[i + 1].upper == "AS":
                i += 3  # EXECUTE AS CALLER | SELF | OWNER | 'user'
                continue
            i += 1
    if i >= len(toks) or toks[i].upper != "AS":
        raise HeadError("no AS before the body")
    body_start = toks[i].start + 2
    return Function(module, tuple(parameters), returns, kind, text[body_start:], line_at(text, body_start), null_on_null)


def _skip_parentheses(toks: list[Token], i: int) -> int:
    if i >= len(toks) or toks[i].text != "(":
        return i
    depth = 0
    while i < len(toks):
        if toks[i].text == "(":
            depth += 1
        elif toks[i].text == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def _parameters(text: str, toks: list[Token], i: int) -> tuple[list[FunctionParameter], int]:
    if i >= len(toks) or toks[i].text != "(":
        return [], i
    end = _skip_parentheses(toks, i)
    inner = toks[i + 1:end - 1]
    pieces: list[list[Token]] = [[]]
    depth = 0
    for tok in inner:
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
        if tok.text == "," and depth == 0:
            pieces.append([])
            continue
        pieces[-1].append(tok)
    found = []
    for piece in pieces:
        if not piece or piece[0].kind != "var":
            continue
        rest = piece[1:]
        if rest and rest[0].upper == "AS":
            rest = rest[1:]
        while rest and rest[-1].upper in ("READONLY", "NULL", "NOT"):
            rest = rest[:-1]
        default = None
        equals = next((k for k, t in enumerate(rest) if t.text == "="), None)
        if equals is not None:
            value = rest[equals + 1:]
            default = text[value[0].start:value[-1].start + len(value[-1].text)] if value else None
            rest = rest[:equals]
        type_text = text[rest[0].start:rest[-1].start + len(rest[-1].text)] if rest else ""
        found.append(FunctionParameter(piece[0].text.lstrip("@").lower(), type_text.replace("[", "").replace("]", ""), default))
    return found, end


# -- one expression from a scalar body -------------------------------------------------------------------

def _tree(text: str) -> exp.Expr:
    try:
        return sqlglot.parse_one(text, read=SqlServer)
    except (SqlglotError, ValueError) as exc:
        raise NotInlinable(f"`{text[:60]}` could not be read") from exc


_UNCAST = {"geography", "geometry", "hierarchyid", "sql_variant", "xml"}
"""Types a value keeps as it is (the translator writes no CAST to them: the column's own form is the value)."""


def _typed(node: exp.Expr, type_text: str) -> exp.Expr:
    if type_text.split("(")[0].strip().lower() in _UNCAST:
        return exp.Paren(this=node)
    try:
        datatype = exp.DataType.build(type_text, dialect="tsql")
    except (SqlglotError, ValueError) as exc:
        raise NotInlinable(f"the type {type_text} could not be read") from exc
    return exp.Cast(this=exp.Paren(this=node), to=datatype)


def substitute(node: exp.Expr, values: dict[str, exp.Expr]) -> exp.Expr:
    """A copy of `node` with each `@name` in `values` replaced by its expression (in parentheses)."""
    node = node.copy()
    for found in list(node.find_all(exp.Parameter)):
        if isinstance(found.this, exp.Parameter) or isinstance(found.parent, exp.Parameter):
            continue
        name = parameter_name(found).lower()
        if name in values:
            replacement = exp.Paren(this=values[name].copy())
            if found is node:
                return replacement
            found.replace(replacement)
        elif not isinstance(found.parent, exp.Table):
            raise NotInlinable(f"@{name} is not a variable of the function")
    return node


def _scalar_expression(function: Function) -> exp.Expr:
    """Each statement of the body worked into the values of its variables; the RETURN's expression in the end."""
    text = function.body.strip()
    body, problems = blocks.read_body(text, 1)
    if problems:
        raise NotInlinable(problems[0].message)
    nodes = list(body.nodes)
    while len(nodes) == 1 and isinstance(nodes[0], blocks.Block):
        nodes = list(nodes[0].nodes)
    if not nodes or not isinstance(nodes[-1], blocks.Control) or nodes[-1].word != "RETURN" or not nodes[-1].rest:
        raise NotInlinable("its body does not end with RETURN of a value")
    env: dict[str, exp.Expr] = {p.name: exp.Parameter(this=exp.var(p.name)) for p in function.parameters}
    types: dict[str, str] = {p.name: p.type for p in function.parameters}
    for node in nodes[:-1]:
        env = _step(node, env, types)
    returned = _tree(f"SELECT {nodes[-1].rest}")
    if not isinstance(returned, exp.Select) or len(returned.expressions) != 1:
        raise NotInlinable("its RETURN value could not be read")
    return substitute(returned.expressions[0], env)


def _step(node: blocks.Node, env: dict[str, exp.Expr], types: dict[str, str]) -> dict[str, exp.Expr]:
    if isinstance(node, blocks.Block):
        for inner in node.nodes:
            env = _step(inner, env, types)
        return env
    if isinstance(node, blocks.If):
        condition = _tree(f"SELECT 1 WHERE {node.condition}").args["where"].this
        condition = substitute(condition, env)
        then = _step(node.then, dict(env), types)
        otherwise = _step(node.otherwise, dict(env), types) if node.otherwise is not None else dict(env)
        merged = dict(env)
        for name in set(then) | set(otherwise):
            a, b = then.get(name), otherwise.get(name)
            if a is b:
                continue
            if a is None or b is None:
                raise NotInlinable(f"@{name} is declared in only one branch of an IF")
            merged[name] = exp.Case(ifs=[exp.If(this=condition.copy(), true=a.copy())], default=b.copy())
        return merged
    if isinstance(node, blocks.Leaf):
        return _leaf(node, env, types)
    if isinstance(node, blocks.Control):
        raise NotInlinable(f"{node.word} inside its body (only a RETURN at the end is inlined)")
    raise NotInlinable("a WHILE loop or TRY block in its body")


def _leaf(node: blocks.Leaf, env: dict[str, exp.Expr], types: dict[str, str]) -> dict[str, exp.Expr]:
    tree = node.statement.tree
    if tree is None:
        raise NotInlinable(f"`{node.statement.sql[:60]}` could not be read")
    env = dict(env)
    if isinstance(tree, exp.Declare):
        for item in tree.expressions:
            kind = item.args.get("kind")
            if not isinstance(kind, exp.DataType):
                raise NotInlinable("a table variable or cursor in its body")
            type_text = kind.sql("tsql")
            default = item.args.get("default")
            for name_node in item.this if isinstance(item.this, list) else [item.this]:
                name = (parameter_name(name_node) if isinstance(name_node, exp.Parameter) else name_node.name).lower()
                types[name] = type_text
                env[name] = _typed(substitute(default, env), type_text) if isinstance(default, exp.Expr) else exp.Null()
        return env
    if isinstance(tree, exp.Set):
        for item in tree.expressions:
            assignment = item.this if isinstance(item, exp.SetItem) else None
            if not _assignment(assignment):
                raise NotInlinable(f"`{node.statement.sql[:60]}` sets no variable")
            name = parameter_name(assignment.this).lower()
            env[name] = _typed(substitute(assignment.expression, env), _type_of(name, types))
        return env
    if isinstance(tree, exp.Select) and tree.expressions and all(_assignment(s) for s in tree.expressions):
        return _select_assignment(tree, env, types)
    raise NotInlinable(f"`{node.statement.sql[:60]}`: only DECLARE, SET, SELECT @v = ... and IF are inlined")


def _assignment(node: exp.Expr | None) -> bool:
    return (isinstance(node, exp.EQ) and isinstance(node.this, exp.Parameter)
            and not isinstance(node.this.this, exp.Parameter))


def _type_of(name: str, types: dict[str, str]) -> str:
    if name not in types:
        raise NotInlinable(f"@{name} is not declared")
    return types[name]


_AGGREGATES = (exp.AggFunc,)


def _select_assignment(tree: exp.Select, env: dict[str, exp.Expr], types: dict[str, str]) -> dict[str, exp.Expr]:
    """`SELECT @a = x FROM ... WHERE ...`: @a becomes the value of the row the assignment keeps (its last, so the first
    in the reverse order; any row without an ORDER BY), and keeps its value when no row comes."""
    names = [parameter_name(s.this).lower() for s in tree.expressions]
    values = [s.expression for s in tree.expressions]
    if tree.args.get("from_") is None:
        for name, value in zip(names, values, strict=True):
            env[name] = _typed(substitute(value, env), _type_of(name, types))
        return env
    query = substitute(tree, env)
    aggregate = not query.args.get("group") and all(v.find(*_AGGREGATES) is not None for v in values)
    if not aggregate and query.args.get("limit") is None:
        order = query.args.get("order")
        if order is not None:  # the last row in that order is the first in the reverse one
            for ordered in order.expressions:
                ordered.set("desc", not ordered.args.get("desc"))
        query.set("limit", exp.Limit(expression=exp.Literal.number(1)))
    updated = dict(env)
    for name, value in zip(names, values, strict=True):
        single = query.copy()
        single.set("expressions", [substitute(value, env)])
        scalar = exp.Subquery(this=single)
        previous = env.get(name)
        if not aggregate and previous is not None and not isinstance(previous, exp.Null):
            probe = query.copy()
            probe.set("expressions", [exp.Literal.number(1)])
            scalar = exp.Case(ifs=[exp.If(this=exp.Exists(this=probe), true=scalar)], default=previous.copy())
        updated[name] = _typed(scalar, _type_of(name, types))
    return updated


def _inline_query(function: Function) -> exp.Expr:
    text = function.body.strip().rstrip(";").strip()
    if not text.upper().startswith("RETURN"):
        raise NotInlinable("its body is not RETURN of a query")
    query = _tree(text[len("RETURN"):].strip())
    while isinstance(query, (exp.Paren, exp.Subquery)) and isinstance(query.this, exp.Query):
        query = query.this
    if not isinstance(query, exp.Query):
        raise NotInlinable("its RETURN is not a query")
    return query


# -- inlining into a statement -----------------------------------------------------------------------------

class Functions:
    """The user-defined functions of a schema, read once, found by the names calls give them."""

    def __init__(self, database: Database) -> None:
        self._by_key: dict[tuple[str, str], Module] = {}
        for module in database.modules_of("function"):
            self._by_key[((module.schema or "dbo").casefold(), module.name.casefold())] = module
        self._read: dict[tuple[str, str], Function | None] = {}

    def find(self, schema: str | None, name: str) -> Function | None:
        key = ((schema or "dbo").casefold(), name.casefold())
        if key not in self._read:
            module = self._by_key.get(key)
            try:
                self._read[key] = read_function(module) if module is not None and module.definition else None
            except HeadError:
                self._read[key] = None
        return self._read[key]

    def known(self, schema: str | None, name: str) -> bool:
        return ((schema or "dbo").casefold(), name.casefold()) in self._by_key


def call_of(node: exp.Expr) -> tuple[str, str, list[exp.Expr]] | None:
    """`schema.f(args)` as the reader reads it: (schema, name, arguments)."""
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous) and isinstance(
            node.this, (exp.Identifier, exp.Column, exp.Var)) and not (isinstance(node.this, exp.Column) and node.this.table):
        called = node.expression
        name = called.this.name if isinstance(called.this, exp.Identifier) else str(called.this)
        return node.this.name, name, list(called.expressions)
    return None


def bound(function: Function, arguments: list[exp.Expr]) -> dict[str, exp.Expr]:
    """Each parameter's value in a call: its argument converted to the parameter's type, or its default."""
    if len(arguments) > len(function.parameters):
        raise NotInlinable(f"{function.name} is given {len(arguments)} arguments for {len(function.parameters)} parameters")
    values = {}
    for position, parameter in enumerate(function.parameters):
        argument = arguments[position] if position < len(arguments) else None
        if argument is None or (isinstance(argument, exp.Column) and argument.name.upper() == "DEFAULT" and not argument.table):
            if parameter.default is None:
                raise NotInlinable(f"{function.name} is called without @{parameter.name}, which has no default")
            argument = _tree(f"SELECT {parameter.default}").expressions[0]
        values[parameter.name] = _typed(argument, parameter.type)
    return values


def inline(tree: exp.Expr, functions: Functions) -> tuple[exp.Expr, list[str]]:
    """The statement with every call of a scalar function that can be inlined replaced by its expression, and every
    inline table-valued function by a derived table; what could not be inlined, one line each."""
    problems: list[str] = []
    if not any(isinstance(n, (exp.Dot, exp.Table)) for n in tree.walk()):
        return tree, problems
    tree = tree.copy()
    for _ in range(8):  # an inlined body may call other functions: a few rounds
        changed = False
        for node in list(tree.walk()):
            if node.parent is None and node is not tree:
                continue
            replaced = _inline_one(node, functions, problems)
            if replaced is not None:
                if node is tree:
                    tree = replaced
                else:
                    node.replace(replaced)
                changed = True
        if not changed:
            break
    return tree, list(dict.fromkeys(problems))


def _inline_one(node: exp.Expr, functions: Functions, problems: list[str]) -> exp.Expr | None:
    if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous):
        return _table_function(node, node.db or None, node.this, functions, problems)
    if isinstance(node, exp.Lateral) and isinstance(node.this, exp.Dot):
        found = call_of(node.this)
        if found is None or not functions.known(found[0], found[1]):
            return None
        table = exp.Table(this=node.this.expression.copy(), db=exp.to_identifier(found[0]), alias=node.args.get("alias"))
        derived = _table_function(table, found[0], table.this, functions, problems)
        if derived is None:
            return None
        lateral = node.copy()
        lateral.set("this", derived.this)
        lateral.set("alias", derived.args.get("alias"))
        return lateral
    found = call_of(node)
    if found is None:
        return None
    schema, name, arguments = found
    function = functions.find(schema, name)
    if function is None:
        return None
    if function.kind != "scalar":
        problems.append(f"{function.name} returns a table: it is read in FROM, not called as a value")
        return None
    body = function.inlined_body()
    if body is None:
        problems.append(f"{function.name} cannot be inlined ({function.why_not}): the runner runs it only where a "
                        "statement assigns its value to a variable")
        return None
    try:
        values = bound(function, arguments)
        expression = _typed(substitute(body, values), function.returns or "sql_variant")
    except NotInlinable as exc:
        problems.append(f"{function.name}: {exc}")
        return None
    if function.null_on_null and values:
        nulls = [exp.Is(this=exp.Paren(this=v.copy()), expression=exp.Null()) for v in values.values()]
        condition = nulls[0]
        for more in nulls[1:]:
            condition = exp.Or(this=condition, expression=more)
        expression = exp.Case(ifs=[exp.If(this=condition, true=exp.Null())], default=expression)
    return exp.Paren(this=expression)


def _table_function(table: exp.Table, schema: str | None, called: exp.Anonymous, functions: Functions,
                    problems: list[str]) -> exp.Expr | None:
    name = called.this.name if isinstance(called.this, exp.Identifier) else str(called.this)
    function = functions.find(schema, name)
    if function is None:
        return None
    if function.kind == "scalar":
        problems.append(f"{function.name} is a scalar function, read in FROM")
        return None
    query = function.inlined_body()
    if query is None:
        problems.append(f"{function.name} cannot be read as a derived table ({function.why_not})")
        return None
    try:
        values = bound(function, list(called.expressions))
        body = substitute(query, values)
    except NotInlinable as exc:
        problems.append(f"{function.name}: {exc}")
        return None
    alias = table.args.get("alias") or exp.TableAlias(this=exp.to_identifier(name))
    return exp.Subquery(this=body, alias=alias.copy())


_LAST: list[tuple[Database, Functions]] = []


def functions_of(database: Database) -> Functions:
    """The functions of `database`, read once for the procedures of one schema compiled one after another."""
    if _LAST and _LAST[0][0] is database:
        return _LAST[0][1]
    found = Functions(database)
    _LAST[:] = [(database, found)]
    return found
