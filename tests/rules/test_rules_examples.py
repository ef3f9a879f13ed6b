"""Every rule's own YAML examples, run through the real pipeline: `fires` must raise it, `passes` must not.
A MySQL rule's (MY) run with the MySQL target, as `--target-engine mysql` would.

Tests are parametrized with the rule code as id, so `pytest -k IX04` runs one rule's examples.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_pipeline import run_example

from sqlsrv2tidb.rules.catalogue import load_catalogue

RUNNABLE = [r for r in load_catalogue(None) if r.examples is not None and r.examples.kind != "replay"]
IDS = [r.code for r in RUNNABLE]


def _describe(outcome) -> str:
    found = sorted(f"{f.rule} {f.object}: {f.message[:100]}" for f in outcome.findings)
    return "\n  ".join([f"codes {sorted(outcome.codes)}", *found])


@pytest.mark.parametrize("rule", RUNNABLE, ids=IDS)
def test_fires(rule, tmp_path: Path):
    outcome = run_example(rule.examples, "fires", tmp_path, rule.engine)
    assert rule.code in outcome.codes, f"{rule.code} did not fire on its own example:\n  {_describe(outcome)}"
    for finding in outcome.of(rule.code):
        assert finding.object and finding.message


@pytest.mark.parametrize("rule", RUNNABLE, ids=IDS)
def test_passes(rule, tmp_path: Path):
    outcome = run_example(rule.examples, "passes", tmp_path, rule.engine)
    assert rule.code not in outcome.codes, f"{rule.code} fired on its passing example:\n  {_describe(outcome)}"
    # A passing example that the reader could not read proves nothing.
    unread = [f for f in outcome.findings if f.rule in ("IN01", "IN02", "IN03")]
    assert not unread, f"the passing example was not fully read:\n  {_describe(outcome)}"
