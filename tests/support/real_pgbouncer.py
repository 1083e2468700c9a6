"""A real PgBouncer in transaction mode in front of the throwaway PostgreSQL cluster, on
a free loopback port, for the tests and the team benchmark. Outside CI a machine without
Debian's `pgbouncer` skips what needs it; with CI=true it fails (.ci/run installs it).
Under root it runs as the cluster's unprivileged user, as PostgreSQL does."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.support.real_postgres import RealPostgres

PGBOUNCER = shutil.which("pgbouncer") or (
    "/usr/sbin/pgbouncer" if os.path.exists("/usr/sbin/pgbouncer") else None
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RealPgBouncer:
    def __init__(
        self, server: RealPostgres, root: Path, *, pool_size: int = 20, max_clients: int = 1000
    ) -> None:
        self.server = server
        self.root = root
        self.port = _free_port()
        self.pool_size = pool_size
        self.max_clients = max_clients
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> RealPgBouncer:
        assert PGBOUNCER is not None
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "users.txt").write_text('"postgres" ""\n')
        (self.root / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"* = host=127.0.0.1 port={self.server.port}\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {self.root / 'users.txt'}\n"
            "admin_users = postgres\n"
            "pool_mode = transaction\nlog_connections = 0\nlog_disconnections = 0\n"
            f"default_pool_size = {self.pool_size}\nmax_client_conn = {self.max_clients}\n"
            f"logfile = {self.root / 'pgbouncer.log'}\n"
        )
        argv = [PGBOUNCER, str(self.root / "pgbouncer.ini")]
        if self.server.owner:
            for path in [self.root, *self.root.iterdir()]:
                shutil.chown(path, self.server.owner)
            argv[1:1] = ["-u", self.server.owner]
        # Its log goes to logfile; stderr too would fill an unread pipe and stop it.
        self.process = subprocess.Popen(
            [*argv[:1], "-q", *argv[1:]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    log = self.root / "pgbouncer.log"
                    raise RuntimeError(
                        "pgbouncer did not start: "
                        + (log.read_text()[-2000:] if log.exists() else "")
                    ) from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def dsn(self, direct: str) -> str:
        """The pooled connection string of a database given by its direct one."""
        return direct.replace(f"port={self.server.port}", f"port={self.port}")

    def pools(self) -> list[dict[str, Any]]:
        """SHOW POOLS on the admin console: clients and server connections per pool."""
        import psycopg
        from psycopg.rows import dict_row

        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=pgbouncer",
            autocommit=True,
            prepare_threshold=None,
        ) as conn:
            conn.cursor_factory = psycopg.ClientCursor  # the console has no extended protocol
            return conn.cursor(row_factory=dict_row).execute("SHOW POOLS").fetchall()
