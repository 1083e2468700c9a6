"""The team bench's database side: a throwaway PostgreSQL cluster (and PgBouncer) that
is stopped and removed however the bench ends, Ctrl-C and SIGTERM included, and what is
measured on it (connections, pools, transactions, advisory lock waits); and the memory
the member processes use."""

from __future__ import annotations

import contextlib
import math
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from bench._common import status_mb
from tests.support.real_pgbouncer import RealPgBouncer
from tests.support.real_postgres import RealPostgres, binaries

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def stop_on_signals() -> None:
    """SIGTERM and SIGHUP end the bench as Ctrl-C does (KeyboardInterrupt), so every
    `finally` stops what it started; a signal during that clean-up is ignored, so the
    clean-up is not cut short."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        for number in SIGNALS:
            signal.signal(number, signal.SIG_IGN)
        raise KeyboardInterrupt(signal.Signals(signum).name)

    for number in SIGNALS:
        signal.signal(number, interrupt)


@contextlib.contextmanager
def cluster(pgbouncer: bool) -> Iterator[tuple[RealPostgres, RealPgBouncer | None]]:
    """A PostgreSQL cluster logging lock waits over 1 ms, and PgBouncer in transaction
    mode in front of it when asked; both stopped and their folder removed on the way out."""
    bindir = binaries()
    assert bindir is not None
    with contextlib.ExitStack() as stack:
        root = Path(tempfile.mkdtemp(prefix="companion-pg-"))  # its owner must reach it
        stack.callback(shutil.rmtree, root, ignore_errors=True)
        server = RealPostgres(bindir, root).init()
        stack.callback(_stop, server)  # before start: a start cut short is stopped too
        # Every function counted (the SQL ones too, as `answered`), every lock wait logged.
        server.start("log_lock_waits=on", "deadlock_timeout=1ms", "track_functions=all")
        bouncer = None
        if pgbouncer:
            bouncer = RealPgBouncer(server, root / "pgbouncer")
            stack.callback(bouncer.stop)
            bouncer.start()
        yield server, bouncer


def _stop(server: RealPostgres) -> None:
    with contextlib.suppress(RuntimeError):  # not running (a Ctrl-C stopped it already)
        server.stop("immediate")


def database_cost(dsn: str) -> dict[str, int]:
    """Calls of each team function and transactions in all, as the server counted them."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        calls = dict(
            conn.execute(
                b"SELECT funcname, calls FROM pg_stat_user_functions WHERE schemaname = 'companion'"
            ).fetchall()
        )
        row = conn.execute(
            b"SELECT xact_commit + xact_rollback FROM pg_stat_database "
            b"WHERE datname = current_database()"
        ).fetchone()
    return {**calls, "transactions": int(row[0]) if row else 0}


class Connections:
    """Samples, twice a second while the members run, how many connections PostgreSQL
    serves (pg_stat_activity's client backends, this sampler's own excluded) and, behind
    PgBouncer, its pools."""

    def __init__(self, server: RealPostgres, bouncer: RealPgBouncer | None, dsn: str) -> None:
        self.server = server
        self.bouncer = bouncer
        self.dsn = dsn
        self.most = 0
        self.pools: dict[str, int] = {}
        self.failed = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import psycopg

        try:
            with psycopg.connect(self.server.dsn(), autocommit=True) as conn:
                while not self._stop.wait(0.5):
                    row = conn.execute(
                        b"SELECT count(*) FROM pg_stat_activity "
                        b"WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
                    ).fetchone()
                    self.most = max(self.most, int(row[0]) if row else 0)
                    if self.bouncer is not None:
                        self._sample_pools(self.bouncer.pools())
        except psycopg.OperationalError:
            if not self._stop.is_set():
                self.failed = True  # a Ctrl-C reached the servers first: keep what we have

    def _sample_pools(self, pools: list[dict[str, Any]]) -> None:
        name = self.dsn.rsplit("=", 1)[1]
        for pool in pools:
            if pool["database"] != name:
                continue
            for key in ("cl_active", "cl_waiting", "sv_active", "sv_idle", "sv_used"):
                self.pools[key] = max(self.pools.get(key, 0), int(pool[key]))
            self.pools["maxwait_ms"] = max(
                self.pools.get("maxwait_ms", 0),
                int(pool["maxwait"]) * 1000 + int(pool["maxwait_us"]) // 1000,
            )

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def lock_waits(log: Path, offset: int) -> list[float]:
    """Milliseconds each logged lock wait lasted (waits over deadlock_timeout only)."""
    with log.open("rb") as source:
        source.seek(offset)
        text = source.read().decode(errors="replace")
    return [
        float(m) for m in re.findall(r"acquired \w+ on advisory lock .*? after ([\d.]+) ms", text)
    ]


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class Memory:
    """Samples, twice a second, the resident memory of the member processes together."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.most_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            sizes = (status_mb(pid, "VmRSS") for pid in self.pids)
            total = sum(size for size in sizes if not math.isnan(size))  # gone: none
            self.most_mb = max(self.most_mb, total)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.most_mb
