"""Which processes fingerprinted: a stand-in for `fingerprint` that notes its process id, then fingerprints.

`tsql.fingerprints` calls it through its module's `fingerprint`, so a test patches that name and
forked workers inherit the patch. With `wait_for`, each process's first call waits until that many
processes have called, so a pool whose second worker never ran fails the test instead of passing on
one worker (the wait ends after a minute either way, and the assertion then fails).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from sqlsrv2tidb.tsql import fingerprints
from sqlsrv2tidb.tsql.fingerprint import fingerprint


def note_processes(monkeypatch: pytest.MonkeyPatch, folder: Path, wait_for: int = 1) -> Path:
    """Patch the fingerprint `tsql.fingerprints` calls; each calling process leaves a file named by its pid in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)

    def noting(text: str) -> str:
        mark = folder / str(os.getpid())
        if not mark.exists():
            mark.touch()
            deadline = time.monotonic() + 60
            while len(list(folder.iterdir())) < wait_for and time.monotonic() < deadline:
                time.sleep(0.005)
        return fingerprint(text)

    monkeypatch.setattr(fingerprints, "fingerprint", noting)
    return folder


def processes(folder: Path) -> set[int]:
    return {int(p.name) for p in folder.iterdir()}
