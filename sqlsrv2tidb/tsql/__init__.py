"""Reading T-SQL text the same way everywhere: fingerprints, statement kinds, parameter declarations, literals.

Captured SQL reaches several stages: capture groups executions into query classes by fingerprint,
translate computes the same fingerprint and reads the same `(@P1 int)` declarations, plan and
replay ask what kind of statement a class is. Each must read the text exactly as the others do, or
rates and translations stop lining up, so the reading lives here, below all of them, and imports
nothing of the package but the model.

    fingerprint  one key per statement shape, its short id, its kind, Query Store's parameter prefix
    literals     a small T-SQL lexer and the values of literals, as the workload model stores them

(The parser of schema scripts is capture's own: `capture/ddl`.)
"""
