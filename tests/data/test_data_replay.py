"""`replay` and `experiment` say whether the target held data, and how much: a read against empty tables measures nothing."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from data_helpers import data, document

from sqlsrv2tidb.model import save_capture
from sqlsrv2tidb.replay.config import ReplayConfig
from sqlsrv2tidb.replay.runner import run_replay
from sqlsrv2tidb.target import parse_target

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "replay"))
from replay_helpers import KEYWORDS, create_keywords, keywords_case  # noqa: E402


def test_a_replay_says_whether_the_target_held_data(mariadb, database, tmp_path):
    """RP08 against empty tables; after `data synthesize` filled them, the rows are counted instead."""
    create_keywords(mariadb, database)
    capture, translation = keywords_case(insert_rate=0.001, select_rate=50)
    config = ReplayConfig(qps=20, duration=1, warmup=0, workers=1, connections=2)
    empty = run_replay(capture, translation, parse_target(mariadb.url(database)), config, out=tmp_path / "empty")
    held = json.loads((tmp_path / "empty" / "replay.json").read_text())["target_data"]
    assert held["rows"] == 0 and held["empty"] == ["keywords"] and "no rows" in held["said"]
    assert [f.rule for f in empty.findings if f.rule == "RP08"] == ["RP08"]

    counted = replace(capture, database=replace(capture.database, tables=(replace(KEYWORDS, row_count=3000),)))
    save_capture(counted, tmp_path / "capture.json")
    filled = data("synthesize", str(tmp_path / "capture.json"), "-o", str(tmp_path / "data"), "--target",
                  mariadb.url(database), "--confirm-database", database)
    assert filled.exit_code == 0, filled.output
    assert document(tmp_path / "data")["tables"][0]["verify"]["status"] == "equal"
    again = run_replay(capture, translation, parse_target(mariadb.url(database)), config, out=tmp_path / "full")
    held = json.loads((tmp_path / "full" / "replay.json").read_text())["target_data"]
    assert held["rows"] == 3000 and held["per_table"] == {"keywords": 3000} and not held["empty"]
    assert held["said"] == "the target held 3,000 rows in 1 of its 1 table(s)"
    assert not [f for f in again.findings if f.rule == "RP08"]
