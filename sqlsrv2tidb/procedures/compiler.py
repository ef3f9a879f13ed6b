"""A procedure read once into a `Program`: its head, its body's blocks, every statement translated.

`compile_procedure` takes a schema's `Module` (a script, an SSDT project or a live catalog gave its
definition); `compile_batch` takes T-SQL text with declared parameters: a captured class that calls
a procedure (`EXEC dbo.P @a = @1`), or the literal SQL of sp_executesql. Reading never raises for
what it cannot run: that is the program's `blockers`, each with its line, and the program is
`unsupported`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from ..model import Column, Database, Module, Parameter
from ..options import Options
from ..translate.naming import NameMap
from ..translate.session import SentStatement, worst
from ..translate.statements import parse_statements
from . import blocks
from . import program as p
from .expressions import RUNTIME_PREFIX
from .functions import HeadError as FunctionHeadError
from .functions import read_function
from .header import Blocker, HeadError, read_head
from .leaves import leaf_step, table_parameter, unit_type
from .triggers import UPDATED, Trigger, read_trigger_head
from .unit import Unit, parse_expression


def compile_procedure(module: Module, database: Database, names: NameMap, options: Options) -> p.Program:
    """The procedure's program; a procedure without a readable definition is one that cannot run."""
    name = module.qualified_name
    file, first = module.source.file, module.source.line or 1
    if module.definition is None:
        return _blocked(name, file, first, Blocker("definition not available", 1, "the server keeps it encrypted, or the "
                                                   "capture could not read it"))
    if module.is_clr:
        return _blocked(name, file, first, Blocker("CLR procedure", 1, "its body is .NET code: there are no statements to run"))
    try:
        head = read_head(module.definition)
    except HeadError as exc:
        return _blocked(name, file, first, Blocker("unreadable definition", 1, str(exc)))
    unit = Unit(name, database, names, options, _nested(database, names, options, name))
    parameters = []
    for declared in head.parameters:
        type_text, table_type = unit_type(unit, declared.type)
        if table_type is not None:
            table = table_parameter(unit, declared.name, declared.type, declared.line)
            if table is not None:
                parameters.append(p.Parameter(declared.name, type_text, None, True, False, table))
            continue
        unit.declare(declared.name, type_text)
        default = None
        if declared.default is not None:
            node = parse_expression(declared.default)
            if node is None:
                unit.block("unreadable default", declared.line, f"the default of {declared.name} could not be read")
            else:
                default = unit.value(node, declared.default, declared.line)
        parameters.append(p.Parameter(declared.name, type_text, default, declared.default is not None, declared.output))
    unit.blockers.extend(head.blockers)
    body, read = blocks.read_body(module.definition[head.body_start:], head.body_line)
    unit.blockers.extend(read)
    return _finish(unit, tuple(parameters), _step(unit, body), file, first)


def compile_function(module: Module, database: Database, names: NameMap, options: Options) -> p.Program:
    """A scalar function's body as a program the runner runs where a statement assigns its value (`functions`)."""
    name = module.qualified_name
    file, first = module.source.file, module.source.line or 1
    if module.definition is None:
        return _blocked(name, file, first, Blocker("definition not available", 1, "the server keeps it encrypted"))
    try:
        function = read_function(module)
    except FunctionHeadError as exc:
        return _blocked(name, file, first, Blocker("unreadable definition", 1, str(exc)))
    unit = Unit(name, database, names, options, _nested(database, names, options, name))
    parameters = []
    for declared in function.parameters:
        type_text, _ = unit_type(unit, declared.type)
        unit.declare(declared.name, type_text)
        default = None
        if declared.default is not None:
            node = parse_expression(declared.default)
            default = unit.value(node, declared.default, function.body_line) if node is not None else None
        parameters.append(p.Parameter("@" + declared.name, type_text, default, declared.default is not None))
    if function.kind != "scalar":
        unit.block("table-valued function", function.body_line, "a multi-statement table-valued function read in FROM "
                                                                  "fills a table the runner does not return")
    body, read = blocks.read_body(function.body, function.body_line)
    unit.blockers.extend(read)
    return replace(_finish(unit, tuple(parameters), _step(unit, body), file, first), returns=function.returns)


def compile_trigger(module: Module, database: Database, names: NameMap, options: Options, number: int) -> Trigger:
    """A DML trigger's program (`triggers`): its body with `inserted` and `deleted` as temporary tables of its
    table's columns, and UPDATE(column) as the runner's value for the statement that fired it."""
    name, file, first = module.qualified_name, module.source.file, module.source.line or 1
    parent = module.parent or ""
    schema, _, bare = parent.rpartition(".")
    table = database.table(schema or None, bare)
    head = read_trigger_head(module.definition or "")
    columns = tuple(c.name for c in table.columns) if table is not None else ()
    if head is None or table is None:
        why = "its head could not be read" if head is None else f"its table {parent} is not in the schema"
        return Trigger(name, parent, "after", frozenset(), _blocked(name, file, first, Blocker("unreadable trigger", 1, why)),
                       columns)
    unit = Unit(name, database, names, options, _nested(database, names, options, name))
    made: dict[str, tuple[tuple[SentStatement, ...], str]] = {}
    for word, prefix in (("inserted", "ins"), ("deleted", "del")):
        temp = f"#sqlsrv2tidb_{prefix}_{number}"
        unit.renamed[word] = temp
        definition = ", ".join(f"[{c.name}] {_column_type(c)}" for c in table.columns)
        statement = parse_statements(f"CREATE TABLE {temp} ({definition})")[0]
        created = unit.session.statement(statement.tree, statement.sql) if statement.tree is not None else None
        if created is None or created.unsupported:
            return Trigger(name, parent, head.timing, head.actions, _blocked(
                name, file, first, Blocker("trigger tables", 1, f"`{word}` of {parent} cannot be made on the target")),
                columns)
        made[word] = (created.statements, _created_name(created.statements[0].sql))
    for n in range(len(columns)):
        unit.session.declare(f"@{RUNTIME_PREFIX}updated_{n}", "int")
    body_text = (module.definition or "")[head.body_start:]
    folded = [c.casefold() for c in columns]

    def updated(found: re.Match[str]) -> str:
        column = found[1].strip("[]\"").casefold()
        return f"(@{RUNTIME_PREFIX}updated_{folded.index(column)} = 1)" if column in folded else "(1 = 0)"

    body_text = UPDATED.sub(updated, body_text)
    if re.search(r"\bCOLUMNS_UPDATED\s*\(", body_text, re.IGNORECASE):
        unit.block("COLUMNS_UPDATED()", head.body_line, "a bit mask of the columns the statement set: the runner gives "
                                                       "UPDATE(column) only")
    body, read = blocks.read_body(body_text, head.body_line)
    unit.blockers.extend(read)
    program = _finish(unit, (), _step(unit, body), file, first)
    return Trigger(name, parent, head.timing, head.actions, program, columns, made["inserted"][0], made["deleted"][0],
                   made["inserted"][1], made["deleted"][1])


def _column_type(column: Column) -> str:
    """A column's type as `inserted` holds it: its own, without IDENTITY; a computed column's value as text."""
    if column.computed is not None or column.type is None:
        return "nvarchar(4000)"
    if column.type.name.lower() in ("timestamp", "rowversion"):
        return "binary(8)"
    return str(column.type)


def _created_name(sql: str) -> str:
    found = re.match(r"\s*CREATE\s+TEMPORARY\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(`[^`]+`|\S+)", sql, re.IGNORECASE)
    return found[1].strip("`") if found else ""


def compile_batch(text: str, parameters: tuple[Parameter, ...], database: Database, names: NameMap, options: Options,
                  name: str = "batch", file: str | None = None, first_line: int = 1, wrapper: bool = False,
                  outputs: frozenset[str] = frozenset()) -> p.Program:
    """A batch of T-SQL run as a procedure would be, its declared parameters given by the caller (`wrapper`: a
    captured call around procedures, whose own statements are not counted; `outputs`: the parameters declared
    OUTPUT, lower case with `@`)."""
    unit = Unit(name, database, names, options, _nested(database, names, options, name))
    declared = []
    for parameter in parameters:
        type_text, _ = unit_type(unit, parameter.type)
        unit.declare(parameter.name, type_text)
        at_name = parameter.name if parameter.name.startswith("@") else "@" + parameter.name
        declared.append(p.Parameter(at_name, type_text, output=at_name.lower() in outputs))
    body, read = blocks.read_body(text, 1)
    unit.blockers.extend(read)
    program = _finish(unit, tuple(declared), _step(unit, body), file, first_line)
    return replace(program, wrapper=True) if wrapper else program


def _nested(database: Database, names: NameMap, options: Options, owner: str):
    def nested(text: str, parameters: tuple[Parameter, ...], line: int, outputs: frozenset[str] = frozenset()) -> p.Program:
        return compile_batch(text, parameters, database, names, options, name=f"{owner} (literal SQL, line {line})",
                             outputs=outputs)

    return nested


def _blocked(name: str, file: str | None, first: int, blocker: Blocker) -> p.Program:
    return p.Program(name, (), p.Steps(1, ()), (blocker,), status="unsupported", file=file, first_line=first)


def _finish(unit: Unit, parameters: tuple[p.Parameter, ...], body: p.Step, file: str | None, first: int) -> p.Program:
    for step in _walk(body):
        if isinstance(step, p.CallText):
            nested = step.program
            for blocker in nested.blockers:
                unit.block(blocker.construct, step.line, f"in its literal SQL: {blocker.message}")
            unit.calls.extend(nested.calls)
            unit.writes.extend(f"{w.rsplit(' (line', 1)[0]} (line {step.line})" for w in nested.writes)
            unit.transactions = unit.transactions or nested.transactions
            unit.statuses.append(nested.status if nested.status != "unsupported" else "translated")
        writes = getattr(step, "writes", None)
        if isinstance(writes, str):
            unit.writes.append(f"{writes} (line {step.line})")
    status = "unsupported" if unit.blockers else worst(unit.statuses)
    return p.Program(unit.name, parameters, body, tuple(sorted(unit.blockers, key=lambda b: b.line)), tuple(unit.notes),
                     status, unit.statements, max(unit.sent, 0), tuple(dict.fromkeys(unit.calls)),
                     tuple(dict.fromkeys(unit.writes)), unit.transactions, file, first,
                     tuple(unit.variables.items()))


def _walk(step: p.Step) -> Iterator[p.Step]:
    yield step
    for child in children(step):
        yield from _walk(child)


def children(step: p.Step) -> tuple[p.Step, ...]:
    """The steps directly inside a step."""
    if isinstance(step, p.Steps):
        return step.steps
    if isinstance(step, p.IfStep):
        return (step.then,) + ((step.otherwise,) if step.otherwise is not None else ())
    if isinstance(step, p.WhileStep):
        return (step.body,)
    if isinstance(step, p.TryStep):
        return (step.body, step.catch)
    if isinstance(step, p.AtomicStep):
        return (step.body,)
    if isinstance(step, p.InsertFromCall):
        return (step.call,)
    return ()


def _step(unit: Unit, node: blocks.Node) -> p.Step:
    if isinstance(node, blocks.Block):
        return p.Steps(node.line, tuple(s for s in (_maybe(unit, n) for n in node.nodes) if s is not None))
    stepped = _maybe(unit, node)
    return stepped if stepped is not None else p.Steps(node.line, ())


def _maybe(unit: Unit, node: blocks.Node) -> p.Step | None:
    if isinstance(node, blocks.Block):
        return _step(unit, node)
    unit.statements += 1
    if isinstance(node, blocks.Leaf):
        return leaf_step(unit, node.statement, node.line)
    if isinstance(node, blocks.If):
        condition = unit.condition(node.condition, node.line)
        then = _step(unit, node.then)
        otherwise = _step(unit, node.otherwise) if node.otherwise is not None else None
        return p.IfStep(node.line, condition, then, otherwise) if condition is not None else None
    if isinstance(node, blocks.While):
        condition = unit.condition(node.condition, node.line)
        body = _step(unit, node.body)
        return p.WhileStep(node.line, condition, body) if condition is not None else None
    if isinstance(node, blocks.Try):
        unit.statements -= 1  # BEGIN TRY ... END CATCH is structure, not a statement
        return p.TryStep(node.line, _step(unit, node.body), _step(unit, node.catch))
    if isinstance(node, blocks.Atomic):
        unit.transactions = True
        return p.AtomicStep(node.line, _step(unit, node.body))
    return _control(unit, node)


def _control(unit: Unit, node: blocks.Control) -> p.Step | None:
    if node.word == "RETURN":
        if not node.rest:
            return p.Return(node.line)
        value = parse_expression(node.rest)
        if value is None:
            unit.block("unreadable statement", node.line, f"RETURN {node.rest[:60]}: the value could not be read")
            return None
        return p.Return(node.line, unit.value(value, node.rest, node.line))
    if node.word in ("BREAK", "CONTINUE"):
        return p.Loop(node.line, node.word)
    if node.word in ("GOTO", "LABEL"):
        unit.block("GOTO", node.line, "GOTO and labels: jumps the runner does not follow; the application writes them as "
                                      "loops or conditions")
        return None
    unit.block(f"{node.word} {node.rest.split()[0] if node.rest else ''}".strip(), node.line,
               f"{node.word} {node.rest[:60]}: not a statement the runner knows")
    return None


