"""Every corpus script reads into the same Capture as the recorded one: the reader may change how it reads, not what.

The record (`data/corpus-captures.json.gz`) holds, for each source below, the whole Capture as
`capture.json` writes it (paths relative to tests/corpus). It was written by the reader that held
each script's text and tokens in memory; the streaming reader must give the same JSON, findings
and their line numbers included. A change that is meant to change what is read writes the record
again, and says why in its commit:

    PYTHONPATH=$PWD python3 tests/capture/test_corpus_capture_record.py --record
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `paths`, when run as a script

from paths import CORPUS  # noqa: E402

from sqlsrv2tidb import api  # noqa: E402
from sqlsrv2tidb.model.serde import to_dict  # noqa: E402

RECORD = Path(__file__).parent / "data" / "corpus-captures.json.gz"


def corpus_sources() -> dict[str, list[Path]]:
    """Each corpus script alone, the SSDT project as a folder, and its post-deployment script with its `:r` files."""
    sources: dict[str, list[Path]] = {}
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix.lower() == ".sql" and "wwi-oltp-ssdt" not in path.parts:
            sources[path.relative_to(CORPUS).as_posix()] = [path]
    ssdt = CORPUS / "wwi-oltp-ssdt"
    sources["wwi-oltp-ssdt/"] = [ssdt]
    post = ssdt / "PostDeploymentScripts" / "Script.PostDeployment1.sql"
    sources[post.relative_to(CORPUS).as_posix()] = [post]
    for name in ("pds140-ins-app-stateprovinces.sql", "pds142-upd-app-stateprovinces-borders.sql"):  # data files alone
        path = ssdt / "PostDeploymentScripts" / name
        sources[path.relative_to(CORPUS).as_posix()] = [path]
    return sources


def capture_json(paths: list[Path]) -> str:
    """The Capture of `paths` as JSON, with the corpus folder taken out of every path."""
    text = json.dumps(to_dict(api.read(paths)), indent=1, ensure_ascii=False, sort_keys=True)
    prefix = json.dumps(str(CORPUS) + "/")[1:-1]
    return text.replace(prefix, "")


def _record() -> dict[str, str]:
    with gzip.open(RECORD, "rt", encoding="utf-8") as fh:
        return json.load(fh)


@pytest.mark.parametrize("name", sorted(corpus_sources()))
def test_capture_is_the_recorded_one(name: str) -> None:
    recorded = _record()
    assert name in recorded, f"{name} has no record; write it with --record (see the module docstring)"
    now = capture_json(corpus_sources()[name])
    if now != recorded[name]:
        import difflib

        diff = "\n".join(list(difflib.unified_diff(recorded[name].splitlines(), now.splitlines(), "recorded", "now",
                                                   lineterm="", n=2))[:80])
        pytest.fail(f"{name}: the Capture differs from the record\n{diff}")


def test_the_record_covers_the_large_scripts() -> None:
    """The record is not empty or partial: it has the scripts whose data the streaming reader passes over."""
    recorded = _record()
    assert set(recorded) == set(corpus_sources())
    northwind = json.loads(recorded["northwind/instnwnd.sql"])
    rows = {t["name"]: t["scripted_rows"] for t in northwind["database"]["tables"]}
    assert rows["Order Details"] == 2155 and rows["Orders"] == 830


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(RECORD, "wt", encoding="utf-8") as fh:
        json.dump({name: capture_json(paths) for name, paths in corpus_sources().items()}, fh, indent=0)
    print(f"wrote {RECORD}")
