"""Every translation of the development corpora is byte-identical to the record (`translation_record`).

The record holds status, notes and TiDB text of each of some 1,500 statements; a difference fails
with the statements that changed, old and new, so a speed change that alters output is caught and a
deliberate change is reviewed before the record is rewritten.
"""

from __future__ import annotations

import json
import os

import pytest
from translation_record import COMMAND, RECORD, current, read_record, write_record

pytestmark = pytest.mark.slow


def _describe(old: str | None, new: str | None) -> str:
    item = json.loads(new or old or "{}")
    where = f"{item.get('corpus')} {item.get('sample')}"
    if old is None or new is None:
        return f"{where}: {'added' if old is None else 'gone'}"
    before, after = json.loads(old), json.loads(new)
    changed = {k: (before[k], after[k]) for k in after if before.get(k) != after[k]}
    return f"{where}: " + "; ".join(f"{k}: {a!r} -> {b!r}" for k, (a, b) in changed.items())


def test_translations_match_the_record():
    lines = list(current())
    if os.environ.get("UPDATE_TRANSLATIONS") == "1" or not RECORD.exists():
        write_record(lines)
    recorded = read_record()
    if lines == recorded:
        return
    old = {(json.loads(x)["corpus"], json.loads(x)["sample"]): x for x in recorded}
    new = {(json.loads(x)["corpus"], json.loads(x)["sample"]): x for x in lines}
    diffs = [_describe(old.get(k), new.get(k)) for k in {**old, **new} if old.get(k) != new.get(k)]
    assert not diffs, (f"{len(diffs)} translations differ from the record:\n" + "\n".join(diffs[:15])
                       + f"\nIf the change is meant, review it and run\n    {COMMAND}")
    assert lines == recorded, "the same translations, in another order"


def test_the_other_sqlglot_build_gives_the_same_translations(tmp_path):
    """With sqlglot's compiled extension installed, the pure-Python build (its `.py` files alone,
    copied aside and imported first in a child process) must translate the corpora byte for byte
    the same: the translator keeps working where the extension is absent."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import sqlglot
    from sqlglot.tokens import SQLGLOTC_INSTALLED

    if not SQLGLOTC_INSTALLED:
        pytest.skip("sqlglot's compiled extension is not installed: the test above ran the pure-Python build")
    source = Path(sqlglot.__file__).parent
    shutil.copytree(source, tmp_path / "sqlglot", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    here = Path(__file__).resolve().parent
    code = ("import sys; from sqlglot.tokens import SQLGLOTC_INSTALLED; assert not SQLGLOTC_INSTALLED; "
            "from translation_record import current; sys.stdout.write('\\n'.join(current()) + '\\n')")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(here), str(here.parent), str(here.parents[1])])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == read_record()
