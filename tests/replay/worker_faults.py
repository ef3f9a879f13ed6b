"""Faults a test gives one Dask worker process, loaded first with `dask worker --preload worker_faults`.

What the cluster replay must survive comes from outside the tool: a machine whose clock is off, a
machine that cannot reach the target. A real worker process is given that fault here, by the
environment its test sets, and nothing else about it changes:

- `SQLSRV2TIDB_TEST_CLOCK_SKEW=S`: `time.time()` reads S seconds ahead (Dask itself kept its own
  reference to the clock at import, so the cluster keeps working; the tool's calls see the skew);
- `SQLSRV2TIDB_TEST_REFUSE_PORT=P`: connections to port P are refused, as a firewall would (PyMySQL
  connects through `socket.create_connection`).
"""

from __future__ import annotations

import os
import socket
import time

_skew = float(os.environ.get("SQLSRV2TIDB_TEST_CLOCK_SKEW") or 0)
if _skew:
    _real_time = time.time
    time.time = lambda: _real_time() + _skew

_refused = int(os.environ.get("SQLSRV2TIDB_TEST_REFUSE_PORT") or 0)
if _refused:
    _real_connect = socket.create_connection

    def _create_connection(address, *args, **kwargs):
        if address[1] == _refused:
            raise ConnectionRefusedError(111, "Connection refused")
        return _real_connect(address, *args, **kwargs)

    socket.create_connection = _create_connection
