"""Damaged copies of a real script (cut short, chunks missing, junk pasted in) never stop the reader.

Each copy must read into a model plus findings that name the file and a line inside it; no
exception may escape, whatever the damage.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from paths import CORPUS

from sqlsrv2tidb.capture.scripts import read_scripts
from sqlsrv2tidb.capture.textfile import TextFile, read_text


class _Ticks:
    def advance(self, n: int = 1) -> None:
        pass

    def update(self, description: str) -> None:
        pass


@pytest.fixture(scope="module")
def sample() -> str:
    # AdventureWorks' table definitions, keys, indexes, triggers and views: the DDL-dense parts.
    lines = read_text(CORPUS / "adventureworks-oltp" / "instawdb.sql").text.split("\n")
    return "\n".join(lines[949:1800] + lines[2700:3560] + lines[4228:4900])


def _damage(text: str, rng: random.Random) -> str:
    how = rng.choice(["cut", "hole", "junk"])
    at = rng.randrange(len(text))
    if how == "cut":
        return text[:at]
    if how == "hole":
        return text[:at] + text[at + rng.randrange(1, 400):]
    junk = rng.choice(["(", ")", "'", "[", "/*", "GO\n", ",", "BEGIN ", "END ", "CREATE ", "N'", "\n:r x.sql\n"])
    return text[:at] + junk + text[at:]


@pytest.mark.parametrize("seed", range(24))
def test_damaged_script_reads_with_findings_and_no_exception(sample: str, seed: int):
    text = sample
    rng = random.Random(seed)
    for _ in range(1 + seed % 3):
        text = _damage(text, rng)
    path = Path("damaged.sql")
    database, findings = read_scripts([TextFile(path, text, "utf-8", False)], _Ticks())
    last_line = text.count("\n") + 1
    assert len(database.tables) <= 71
    for finding in findings:
        assert finding.rule.startswith("IN") and finding.severity is not None
        assert finding.file in (str(path), None) or finding.file.endswith(".sql")
        assert finding.line is None or 1 <= finding.line <= last_line
        assert not finding.message.startswith("could not read this statement (the reader failed"), finding.message
