"""The answers tests import the generators and the data tests' helpers by module name: their folders go on
sys.path here (the databases themselves are session fixtures of tests/conftest.py: compare_sede, compare_wwi)."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
for folder in (TESTS / "answers" / "sede", TESTS / "data", TESTS / "answers"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
