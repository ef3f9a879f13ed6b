"""What the benchmarks read of a running process from /proc (Linux), shared so each measures alike."""

from __future__ import annotations

from pathlib import Path


def high_water(pid: int) -> int:
    """VmHWM of a running process (KiB): its own peak, from exec on (a fork's rusage counts the parent's
    pages); 0 once it has gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0
