"""What a procedure's dynamic SQL is known by before it runs: what it is counted as changing, and which parameters
its declaration list passes back.

The compiler reads these while it reads a procedure (`leaves`); the runner's `dynamic` compiles the text when it
runs, with the compiler: the two halves stay in modules of their own so neither imports the other's importer.
"""

from __future__ import annotations

import re

WRITES = "SQL built at run time"
"""What a procedure with dynamic SQL is counted as changing."""


def output_names(declarations: str) -> frozenset[str]:
    """The parameters a declaration list (`@a int OUTPUT, @b int`) declares OUTPUT, lower case with `@`."""
    found = set()
    for piece in re.split(r",(?![^()]*\))", declarations or ""):
        m = re.match(r"\s*(@[\w@#$]+)\s.*?\b(OUT|OUTPUT)\s*$", piece, re.IGNORECASE | re.DOTALL)
        if m:
            found.add(m[1].lower())
    return frozenset(found)
