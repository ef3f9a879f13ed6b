"""Where the tests' own material lives, importable by name from any test folder.

A test module must not import from `conftest`: pytest loads several conftest modules under that
one name, so which one an import finds depends on the folders collected together.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
CORPUS = TESTS / "corpus"
EXAMPLES = ROOT / "examples"

CORPUS_SCHEMAS = {
    "northwind": CORPUS / "northwind",
    "adventureworks-oltp": CORPUS / "adventureworks-oltp",
    "chinook": CORPUS / "chinook" / "Chinook_SqlServer.sql",
    "chinook-identity": CORPUS / "chinook" / "Chinook_SqlServer_AutoIncrementPKs.sql",
    "wwi-oltp-ssdt": CORPUS / "wwi-oltp-ssdt",
}
"""The shared corpus's schemas, by the name the DDL tests give them."""
