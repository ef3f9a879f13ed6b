"""Fixtures of the report tests: OUT folders built through the real contracts, a fixed rules
catalogue for gold files, and one headless Chromium per module."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import sample  # noqa: E402
from browser import Chromium, chromium_path  # noqa: E402

from sqlsrv2tidb.report.rulesinfo import RuleInfo  # noqa: E402

DOCS = "https://docs.pingcap.com/tidb/stable/"
RULES = {
    "DI01": RuleInfo("DI01", "write-hotspot-composite-key", "A write-hot table on one Region",
                     "PARTITION BY KEY (pk columns) PARTITIONS n, or NONCLUSTERED with SHARD_ROW_ID_BITS.",
                     "medium", (DOCS + "troubleshoot-hot-spot-issues",)),
    "TY02": RuleInfo("TY02", "datetime2-precision", "Fractional seconds beyond 6 digits",
                     "Accept microseconds, or keep the 7th digit in its own column.", "simple",
                     (DOCS + "data-type-date-and-time",)),
    "TY05": RuleInfo("TY05", "max-type-size", "Values over 6 MiB", "Raise txn-entry-size-limit or store large values elsewhere.",
                     "medium", (DOCS + "tidb-limitations",)),
    "IX03": RuleInfo("IX03", "include-columns", "INCLUDE columns join the key", "Add the columns to the index key.",
                     "simple", (DOCS + "sql-statement-create-index",)),
    "QY07": RuleInfo("QY07", "datediff-boundaries", "DATEDIFF counts boundaries", "Check the results around boundaries.",
                     "medium", (DOCS + "date-and-time-functions",)),
    "QY09": RuleInfo("QY09", "merge-statement", "MERGE has no TiDB statement", "Rewrite as INSERT ... ON DUPLICATE KEY UPDATE.",
                     "significant", (DOCS + "sql-statement-insert", "javascript:alert(1)")),
    "ID01": RuleInfo("ID01", "identity-auto-increment", "IDENTITY becomes AUTO_INCREMENT", "", "simple",
                     (DOCS + "auto-increment",)),
}


@pytest.fixture
def rules() -> dict[str, RuleInfo]:
    return dict(RULES)


@pytest.fixture
def keywords_dir(tmp_path: Path) -> Path:
    return sample.keywords_out(tmp_path / "out")


@pytest.fixture
def hostile_dir(tmp_path: Path) -> Path:
    return sample.hostile_out(tmp_path / "evil")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Chromium]:
    if chromium_path() is None:
        pytest.fail("Chromium is missing: scripts/test installs Debian's chromium package")
    browser = Chromium(width=1280, height=900)
    try:
        yield browser
    finally:
        browser.close()
