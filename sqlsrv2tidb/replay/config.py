"""Everything a replay run is told to do, checked once so the engine can trust it."""

from __future__ import annotations

import os
import random
import re
from dataclasses import dataclass, replace
from typing import Literal

from ..errors import UsageError

Arrival = Literal["uniform", "poisson"]
PROTOCOLS = ("auto", "text", "prepared")
"""`--protocol`: `auto` sends classes captured as RPC calls with parameters as prepared statements and the
rest as text; `text` and `prepared` send every class one way (see `replay.protocol`)."""


@dataclass(frozen=True)
class Ramp:
    """`--ramp START:STEP:MAX`: raise the total rate by STEP from START until MAX or saturation."""

    start: float
    step: float
    maximum: float

    @classmethod
    def parse(cls, text: str) -> Ramp:
        try:
            start, step, maximum = (float(p) for p in text.split(":"))
        except ValueError:
            raise UsageError(f"--ramp must be START:STEP:MAX in queries per second, got {text!r}") from None
        if start <= 0 or step <= 0 or maximum < start:
            raise UsageError(f"--ramp {text}: need 0 < START <= MAX and STEP > 0")
        return cls(start, step, maximum)

    def rates(self) -> list[float]:
        out, rate = [], self.start
        while rate <= self.maximum + 1e-9:
            out.append(rate)
            rate += self.step
        return out


@dataclass(frozen=True)
class ReplayConfig:
    window: str | None = None
    scale: float | None = None
    qps: float | None = None
    duration: float = 60.0
    warmup: float = 5.0
    workers: int | None = None
    connections: int = 16
    arrival: Arrival = "uniform"
    timed: bool = False
    """Replay captured events at their original spacing (Extended Events captures)."""
    speed: float = 1.0
    ramp: Ramp | None = None
    p99_limit_ms: float = 100.0
    """A ramp step counts as sustained only if p99 stays under this."""
    allow_writes: bool = False
    confirm_database: str | None = None
    seed: int | None = None
    """Seed of the generated parameter values: the same seed sends the same statements again. None: a new
    seed for each run (`with_seed`), written to replay.json, so a rerun does not repeat the last run's keys."""
    driver: str = "auto"
    seed_drawn: bool = False
    """The seed was drawn for this run rather than given."""
    protocol: str = "auto"
    cluster: str | None = None
    """A Dask scheduler's address (`tcp://host:8786`): its workers send the run, one share each; `workers`
    then caps how many of them are used."""

    def __post_init__(self) -> None:
        if self.scale is not None and self.qps is not None:
            raise UsageError("give --scale or --qps, not both")
        if self.qps is not None and self.qps <= 0:
            raise UsageError("--qps must be positive")
        if self.scale is not None and self.scale <= 0:
            raise UsageError("--scale must be positive")
        if self.duration <= 0:
            raise UsageError("--duration must be positive")
        if self.warmup < 0:
            raise UsageError("--warmup cannot be negative")
        if self.connections < 1:
            raise UsageError("--connections must be at least 1")
        if self.workers is not None and self.workers < 1:
            raise UsageError("--workers must be at least 1")
        if self.speed <= 0:
            raise UsageError("--speed must be positive")
        if self.protocol not in PROTOCOLS:
            raise UsageError(f"--protocol must be {', '.join(PROTOCOLS)}; got {self.protocol!r}")
        if self.cluster is not None and not re.fullmatch(r"(tcp|tls|ws|wss|ucx)://[^/\s]+/?", self.cluster):
            raise UsageError(f"--cluster must be a Dask scheduler's address, e.g. tcp://host:8786; got {self.cluster!r}")
        if self.allow_writes and not self.confirm_database:
            raise UsageError("--allow-writes needs --confirm-database NAME naming the target's database")

    def with_seed(self) -> ReplayConfig:
        """This config with its seed fixed: the given one, or a new one drawn for this run."""
        if self.seed is not None:
            return self
        return replace(self, seed=random.SystemRandom().randrange(1, 2**31), seed_drawn=True)

    @property
    def worker_count(self) -> int:
        return self.workers or os.cpu_count() or 1
