"""`--cluster tcp://HOST:8786`: the replay's schedule sent by the workers of a Dask cluster.

One client machine sends a few tens of thousands of statements per second at best; a captured peak
beyond that needs several machines sending one schedule, with one set of percentiles and one
verdict. Dask distributed (a scheduler and workers, started with `dask scheduler` / `dask worker`,
`SSHCluster`, or Dask's Helm chart and dask-kubernetes) is the machinery that starts, reaches and
watches those processes; this module only uses it. Reading, translating and planning happen once,
here; each step's schedule is split into shares (`shares`), one per worker, which run the local
engine's worker loop (`cluster_task`) and return mergeable measurements (`cluster_step`).

This module and `cluster_task` are the only ones that import Dask, which is optional:
`pip install 'sqlsrv2tidb[cluster]'` on the machine that runs the command and on every worker.
"""

from __future__ import annotations

import time
from typing import Any

from ..errors import ConnectionFailed, UsageError, one_line
from . import cluster_task
from .clock import ClockOffset, measure

CONNECT_TIMEOUT = 15.0
AUTO_ORDER = ("mysqlclient", "pymysql")
"""`--driver auto` on a cluster: the fastest driver every worker has (the order of `drivers.AUTO_ORDER`)."""


def import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise UsageError("--cluster needs Dask: pip install 'sqlsrv2tidb[cluster]' (here and on every worker)") from None
    return distributed


class Cluster:
    """A connection to a Dask scheduler, and the workers that will send a run's shares."""

    def __init__(self, address: str, workers: int | None = None) -> None:
        distributed = import_distributed()
        self.address = address
        try:
            self.client = distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ConnectionFailed(f"--cluster {address}: cannot reach the Dask scheduler ({one_line(exc)})") from None
        try:
            self.about = self._workers(workers)
        except BaseException:
            self.close()
            raise

    def _workers(self, wanted: int | None) -> dict[str, dict[str, Any]]:
        answers = self.client.run(cluster_task.about, on_error="return")
        found = {w: a for w, a in answers.items() if isinstance(a, dict)}
        if not found:
            raise ConnectionFailed(f"--cluster {self.address}: the scheduler has no workers that answer; start some "
                                   f"with `dask worker {self.address}` where sqlsrv2tidb is installed")
        from .. import __version__

        other = sorted(f"{w} has {a['version']}" for w, a in found.items() if a["version"] != __version__)
        if other:
            raise UsageError(f"--cluster {self.address}: every worker needs sqlsrv2tidb {__version__}, as here: "
                             + ", ".join(other))
        chosen = sorted(found)[:wanted] if wanted else sorted(found)
        return {w: found[w] for w in chosen}

    @property
    def workers(self) -> list[str]:
        return list(self.about)

    def host(self, worker: str) -> str:
        return str(self.about.get(worker, {}).get("host", ""))

    def driver(self, wanted: str) -> str:
        """The driver every worker has: `auto` takes the fastest of them; a named one must be on all."""
        have = [set(a["drivers"]) for a in self.about.values()]
        if wanted == "auto":
            return next((d for d in AUTO_ORDER if all(d in h for h in have)), "pymysql")
        if wanted not in cluster_task.DRIVERS:
            raise UsageError(f"--driver must be auto, {', '.join(cluster_task.DRIVERS)}; got {wanted!r}")
        missing = sorted(w for w, a in self.about.items() if wanted not in a["drivers"])
        if missing:
            raise UsageError(f"--driver {wanted}: not installed on worker(s) {', '.join(missing)} "
                             "(pip install 'sqlsrv2tidb[fast]' there, or 'sqlsrv2tidb[asyncio]' for asyncmy)")
        return wanted

    def offset(self, worker: str) -> ClockOffset:
        """The worker's clock against ours, through the scheduler (see `clock`)."""
        return measure(lambda: self.client.run(cluster_task.now, workers=[worker])[worker], time.time)

    def alive(self) -> set[str]:
        """The workers the scheduler has now, asked of it each time.

        Not `scheduler_info()`: it returns the client's cached copy, which the client's own loop rewrites
        every few seconds (with no workers in it), so a read at the wrong moment saw every worker gone.
        """
        return set(self.client.nthreads())

    def scheduler_cpu(self) -> float | None:
        try:
            return float(self.client.run_on_scheduler(time.process_time))
        except Exception:  # noqa: BLE001 - a scheduler that refuses to run functions just leaves this out
            return None

    def close(self) -> None:
        try:
            self.client.close(timeout=5)
        except Exception:  # noqa: BLE001 - closing a client whose scheduler is gone must not fail the run
            pass

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
