"""The translator's whole output on the development corpora, as one record to compare byte for byte.

Speed work (a tree check instead of a re-read, passes skipped where they have nothing to rewrite,
several processes) must not change a single translation. So every statement of the corpora the
execution check runs (the golden pairs, the 857 SEDE queries, the modules of AdventureWorks and
WideWorldImporters) and the example capture is translated, and its status, notes (code, status,
message), TiDB text and bound parameters are written one JSON line each to `translations.jsonl.gz`
(gzip keeps the 2 MB of text small in the repository; `zcat` reads it).

Rewrite the record only for a change made on purpose, and review the diff:
`UPDATE_TRANSLATIONS=1 pytest tests/translate/test_translation_record.py`.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator

from corpora import NAMES, corpus
from execution import translate
from paths import EXAMPLES, TESTS

from sqlsrv2tidb import api
from sqlsrv2tidb.model.translation import TranslatedQuery
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.translate.queries import translate_workload

RECORD = TESTS / "translate" / "translations.jsonl.gz"
COMMAND = "UPDATE_TRANSLATIONS=1 PYTHONPATH=$PWD python3 -m pytest -q -p no:cacheprovider tests/translate/test_translation_record.py"


def line(corpus_name: str, sample_id: str, result: TranslatedQuery) -> str:
    """One statement's output as a JSON line; key order fixed, so equal output is equal text."""
    return json.dumps({
        "corpus": corpus_name, "sample": sample_id, "id": result.id, "kind": result.kind,
        "status": result.status, "notes": [[n.code, n.status, n.message] for n in result.notes],
        "target_sql": result.target_sql, "parameters": list(result.parameters),
    }, ensure_ascii=False, sort_keys=False)


def current() -> Iterator[str]:
    """Today's translator output over every corpus, in the corpora's own order."""
    for name in NAMES:
        c = corpus(name)
        for sample in c.samples:
            yield line(name, sample.id, translate(c, sample))
    capture = api.read([EXAMPLES / "keywords"])
    for query in translate_workload(capture, Options()).queries:
        yield line("examples/keywords", query.id, query)


def read_record() -> list[str]:
    with gzip.open(RECORD, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def write_record(lines: list[str]) -> None:
    # mtime=0: the same lines always compress to the same bytes, so an unchanged record is no diff.
    with open(RECORD, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode("utf-8"))
