"""One schedule split into shares, one per machine's sending process, and what each share measured.

A schedule is already split into shards, one per connection (`schedule`); a share is a group of
those shards. Shard `s` goes to share `s mod N`, so every share holds every N-th connection: with
uniform arrivals each connection sends the same number of statements, and its classes follow the
same golden-ratio sequence over the global send number, so each share keeps each class's part of
the rate and the shares' rates add up to the schedule's. A share runs on one Dask worker
(`cluster_task`) with the same engine as a local worker process, and comes back as a `ShareData`:
its own per-second measurements and totals, kept apart so the result can show each worker's
figures next to the merged ones (and the merged counts are, exactly, the sum of the shares').

    >>> share_shards(5, 2)
    [(0, 2, 4), (1, 3)]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .schedule import RateSchedule, Schedule
from .stats import ClassSecond
from .workers import WorkerTotals


def share_shards(shards: int, shares: int) -> list[tuple[int, ...]]:
    """The connections (shards) of each share: every `shares`-th one, none left out, no share empty."""
    shares = max(1, min(shares, shards))
    return [tuple(range(k, shards, shares)) for k in range(shares)]


def share_rate(schedule: Schedule, shards: tuple[int, ...]) -> float:
    """The statements per second a share is meant to send: its connections' part of the schedule."""
    if isinstance(schedule, RateSchedule):
        return schedule.total_qps * len(shards) / schedule.shards
    chosen = set(shards)
    sent = sum(1 for _, _, _, key in schedule.sends if key % schedule.shards in chosen)
    return sent / schedule.duration if schedule.duration > 0 else 0.0


@dataclass
class ShareData:
    """What one share of a cluster run measured, and where it ran."""

    share: int
    worker: str
    """The Dask worker's address."""
    connections: tuple[int, ...]
    target_qps: float
    host: str = ""
    status: str = "running"
    """`running` until its task returns, then `done`; or `lost` (the worker left the cluster, or its task
    failed: its measurements end there) or `stopped` (it did not answer after being asked to stop)."""
    seconds: dict[int, dict[int, ClassSecond]] = field(default_factory=dict)
    totals: WorkerTotals = field(default_factory=WorkerTotals)
    clock_offset_s: float = 0.0
    """The worker's clock minus the coordinator's, measured through the scheduler before the start."""
    clock_rtt_s: float = 0.0
    """The round trip of the offset's best sample: the offset is right to within half of it."""
    start_late_s: float = 0.0
    """How late the start order reached the worker (0 when it came before the agreed instant)."""
    lost_at_s: float | None = None
    """Seconds after the start when the coordinator saw the share lost."""
    stopped_after_s: float | None = None
    """Seconds after the start when the share stopped sending because it was asked to."""
    note: str = ""

    def describe(self, shares: int) -> str:
        """`share 2 of 3 (worker tcp://10.0.0.7:40211 on host-b, 2 connections)`, for messages."""
        where = f"worker {self.worker}" + (f" on {self.host}" if self.host else "")
        count = len(self.connections)
        return f"share {self.share} of {shares} ({where}, {count} connection{'s' if count != 1 else ''})"

    def row(self, warmup: float, measured: float) -> dict[str, Any]:
        """This share's line of the per-worker table: the same measured seconds as the merged result."""
        cell = ClassSecond()
        for second, row in self.seconds.items():
            if second >= int(warmup):
                for c in row.values():
                    cell.sent += c.sent
                    cell.ok += c.ok
                    cell.errors += c.errors
                    cell.late += c.late
        answered = sum(c.ok + c.errors for row in self.seconds.values() for c in row.values())
        cpu = self.totals.cpu_s
        return {
            "share": self.share, "worker": self.worker, "host": self.host, "state": self.status,
            "connections": len(self.connections), "target_qps": round(self.target_qps, 3),
            "sent": cell.sent, "statements": cell.ok + cell.errors,
            "achieved_qps": round(cell.ok / measured, 3) if measured > 0 else 0.0,
            "errors": cell.errors, "late_sends": cell.late, "missed": self.totals.missed,
            "client_cpu_s": round(cpu, 3),
            "cpu_us_per_statement": round(1e6 * cpu / answered, 2) if answered and cpu else None,
            "clock_offset_ms": round(self.clock_offset_s * 1000, 3), "clock_rtt_ms": round(self.clock_rtt_s * 1000, 3),
            "lost_after_s": None if self.lost_at_s is None else round(self.lost_at_s, 1),
            "note": self.note or None,
        }


@dataclass
class ClusterStep:
    """One step of a cluster run: where it ran and each share's part."""

    scheduler: str
    shares: list[ShareData] = field(default_factory=list)
    scheduler_cpu_s: float | None = None
    """CPU seconds the Dask scheduler spent during the step (None when it could not be asked)."""

    @property
    def lost(self) -> list[ShareData]:
        return [s for s in self.shares if s.status in ("lost", "stopped")]

    def lost_text(self) -> str | None:
        """One line naming every share whose measurements stop early, or None when none does."""
        lost = self.lost
        if not lost:
            return None
        parts = []
        for s in lost:
            when = f" {s.lost_at_s:.1f}s after the start" if s.lost_at_s is not None else ""
            parts.append(f"{s.describe(len(self.shares))} was {s.status}{when}" + (f": {s.note}" if s.note else ""))
        return "; ".join(parts)

    def rows(self, warmup: float, measured: float) -> list[dict[str, Any]]:
        return [s.row(warmup, measured) for s in self.shares]
