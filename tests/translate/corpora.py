"""The development corpora the execution check runs, each a schema and the statements written against it.

- `golden`: the golden pairs' T-SQL inputs against golden/schema.sql;
- `sede`: the 857 Stack Exchange Data Explorer queries against the Stack Overflow schema of
  `tables_so.json`;
- `adventureworks`, `wideworldimporters`: the queries inside the modules (views, procedures,
  functions, triggers) of the AdventureWorks script and the WideWorldImporters SSDT project, against
  the schema each defines.

Each corpus is read once per process; the two module corpora take a few seconds to read.
"""

from __future__ import annotations

from functools import cache

from execution import Corpus, Sample
from module_queries import module_queries
from paths import CORPUS_SCHEMAS
from translate_golden import golden_capture, read_cases
from translate_sede import sede_database, sede_queries

from sqlsrv2tidb import api
from sqlsrv2tidb.model import Capture

NAMES = ("golden", "sede", "adventureworks", "wideworldimporters")
_MODULE_SOURCES = {"adventureworks": "adventureworks-oltp", "wideworldimporters": "wwi-oltp-ssdt"}


@cache
def corpus(name: str) -> Corpus:
    if name == "golden":
        samples = tuple(Sample(f"golden {c.id}", c.source) for c in read_cases())
        return Corpus(name, golden_capture(), samples)
    if name == "sede":
        samples = tuple(Sample(f"sede {q.id}", q.sql, q.parameters) for q in sede_queries())
        return Corpus(name, Capture(database=sede_database()), samples)
    capture = api.read([CORPUS_SCHEMAS[_MODULE_SOURCES[name]]])
    extraction = module_queries(capture.database)
    samples = tuple(Sample(f"{q.module} #{q.position}", q.sql, q.parameters) for q in extraction.queries)
    return Corpus(name, capture, samples, left_out=tuple(sorted(extraction.left_out.items())))
