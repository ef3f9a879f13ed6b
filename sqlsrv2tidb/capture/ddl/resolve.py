"""Column, sequence and partition-function types: system types as they are, alias types reduced to their base.

Alias types may be defined after the tables that use them (SSDT keeps them in their own files),
so types are resolved only when every script has been read. An unqualified name is looked up in
`dbo` first, then in the one schema that defines it
(https://learn.microsoft.com/sql/relational-databases/security/authentication-access/ownership-and-user-schema-separation).
"""

from __future__ import annotations

from dataclasses import replace

from ...model import DataType, Severity, UserType
from .actions import TypeSpec
from .context import split_name
from .problems import Findings
from .types import system_type


def _key(schema: str, name: str) -> tuple[str, str]:
    return schema.casefold(), name.casefold()


class TypeResolver:
    def __init__(self, findings: Findings) -> None:
        self.findings = findings
        self.aliases: dict[tuple[str, str], UserType] = {}
        self.table_types: set[tuple[str, str]] = set()

    def alias(self, spec: TypeSpec) -> UserType | None:
        if system_type(spec) is not None:
            return None
        if len(spec.name) >= 2 and spec.name[-2]:
            return self.aliases.get(_key(spec.name[-2], spec.name[-1]))
        folded = spec.name[-1].casefold()
        hit = self.aliases.get(("dbo", folded))
        if hit is not None:
            return hit
        candidates = [t for (_, n), t in self.aliases.items() if n == folded]
        return candidates[0] if len(candidates) == 1 else None

    def resolve(self, spec: TypeSpec, what: str) -> DataType:
        builtin = system_type(spec)
        if builtin is not None:
            return builtin
        alias = self.alias(spec)
        if alias is not None and alias.base is not None:
            return replace(alias.base, alias=alias.qualified_name)
        folded = (split_name(spec.name)[0].casefold(), spec.name[-1].casefold())
        if folded in self.table_types:
            return DataType(f"{split_name(spec.name)[0]}.{spec.name[-1]}")
        self.unknown(spec, what)
        return DataType(".".join(p for p in spec.name if p))

    def unknown(self, spec: TypeSpec, what: str) -> None:
        name = ".".join(p for p in spec.name if p)
        self.findings.add("IN08", Severity.MEDIUM, what,
                          f"{what} has type {name}, which is neither a SQL Server type nor one the scripts define"
                          " (a CLR type?); it is kept by name", spec.token)

