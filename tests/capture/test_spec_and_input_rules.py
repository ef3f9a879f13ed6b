"""The input rules the workload readers raise (IN40-IN47): each YAML's `fires` example raises it, `passes` does not.

The examples are files (`kind: file`): written under their `filename` and read through the same
source detection as the command line, so a rule's documentation cannot drift from what it does.
"""

from __future__ import annotations

import pytest

from sqlsrv2tidb.capture.sources import read_sources
from sqlsrv2tidb.rules.catalogue import load_catalogue

CODES = [f"IN{n}" for n in range(40, 48)]


@pytest.fixture(scope="module")
def catalogue():
    return load_catalogue(None)


@pytest.mark.parametrize("code", CODES)
def test_input_rule_examples(code, catalogue, tmp_path):
    rule = catalogue.rules[code]
    examples = rule.examples
    assert examples is not None and examples.kind == "file" and examples.filename
    for which, text, expected in (("fires", examples.fires, True), ("passes", examples.passes, False)):
        folder = tmp_path / which
        folder.mkdir()
        path = folder / examples.filename
        path.write_text(text, encoding="utf-8")
        capture = read_sources([path])
        raised = [f for f in capture.findings if f.rule == code]
        assert bool(raised) is expected, f"{code} {which}: {[(f.rule, f.message) for f in capture.findings]}"
        if expected:
            assert all(f.file == str(path) and f.severity == rule.severity for f in raised)
        else:
            assert not capture.workload.is_empty
