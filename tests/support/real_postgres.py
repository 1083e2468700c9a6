"""A real PostgreSQL server for the tests: one throwaway cluster per test session.

initdb into a temporary folder, then pg_ctl on a free loopback port (and a private
socket folder). PostgreSQL refuses to run as root, so under root the cluster belongs to
an unprivileged system user made for it (`companion-pg`). Each test gets its own
database. Outside CI a machine without PostgreSQL skips these tests; with CI=true it
fails them (.ci/run installs Debian's `postgresql`)."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

USER = "companion-pg"


def binaries() -> Path | None:
    """The folder of initdb/pg_ctl: on PATH, else Debian's newest versioned folder."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parent.parent.name.split(".")[0]),
    )
    return Path(versions[-1]).parent if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _owner() -> str | None:
    """The system user the cluster runs as when we are root (made once if missing)."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
            check=True,
        )
    return USER


class RealPostgres:
    def __init__(self, bindir: Path, root: Path) -> None:
        self.bindir = bindir
        self.root = root
        self.data = root / "data"
        self.sockets = root / "sockets"
        self.log = root / "server.log"
        self.port = _free_port()
        self.owner = _owner()

    def _run(self, *command: str) -> None:
        argv = [str(self.bindir / command[0]), *command[1:]]
        if self.owner:
            argv = ["runuser", "-u", self.owner, "--", *argv]
        result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            log = self.log.read_text() if self.log.exists() else ""
            raise RuntimeError(f"{command[0]} failed: {result.stderr}\n{log[-2000:]}")

    def init(self) -> RealPostgres:
        self.sockets.mkdir(parents=True)
        if self.owner:
            shutil.chown(self.root, self.owner)
            shutil.chown(self.sockets, self.owner)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
                  "-E", "UTF8", "--no-sync", "--no-instructions")  # fmt: skip
        return self

    def start(self, *settings: str) -> None:
        """settings: more `name=value` server settings (the team bench logs lock waits)."""
        options = (
            f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            "-c track_functions=pl" + "".join(f" -c {setting}" for setting in settings)
        )
        self._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data),
                  "-l", str(self.log), "-o", options)  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "stop", "-w", "-t", "60", "-m", mode, "-D", str(self.data))

    def dsn(self, dbname: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname}"

    def new_database(self) -> str:
        """A fresh database for one test; returns its connection string."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"'.encode())
        return self.dsn(name)


@pytest.fixture(scope="session")
def real_postgres() -> Iterator[RealPostgres]:
    bindir = binaries()
    if bindir is None:
        message = "PostgreSQL (initdb, pg_ctl) is not installed; .ci/run installs postgresql"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    root = Path(tempfile.mkdtemp(prefix="companion-pg-"))
    server = RealPostgres(bindir, root).init()
    server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(RuntimeError):
            server.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def team_db(real_postgres: RealPostgres) -> str:
    """The connection string of a fresh database on the session's cluster."""
    return real_postgres.new_database()
