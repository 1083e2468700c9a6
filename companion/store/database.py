"""One SQLite database (WAL) shared by the threads of a process: a connection per thread,
write transactions that take turns, the schema's migrations applied on open, and the
named queries of sqlite/queries.sql (read by the loader team mode shares)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from companion.store.errors import StoreClosed
from companion.store.sql_files import SQLITE, migrations, queries

# Migrations are only ever appended: a store at version N has run the first N of them.
MIGRATIONS: tuple[str, ...] = tuple(script for _, _, script in migrations(SQLITE))
QUERIES: dict[str, str] = queries(SQLITE)
BUSY_SECONDS = 60.0  # another thread's (or process's) write waits, never fails


class _Connection:
    """One SQLite connection and the lock held while a statement or transaction of its
    owner thread runs on it; close() takes that lock, so it never pulls a connection
    from under work in progress (which crashed the process: SIGSEGV)."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=BUSY_SECONDS
        )
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA synchronous=FULL")  # the books survive a power cut
        self.db.execute("PRAGMA foreign_keys=ON")
        self.busy = threading.RLock()  # a read inside its own transaction holds it again


class Database:
    """Every thread reads and writes through a connection of its own, opened on first
    use: WAL lets reads proceed while a write on another thread waits for its fsync, so
    the daemon's event loop never waits on the disk to read, and no connection is ever
    used by two threads at once. Writes of this process take turns on one lock; other
    processes are waited for by SQLite's busy timeout."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()  # one write transaction of this process at a time
        self._local = threading.local()
        self._connections: list[_Connection] = []
        self._registry = threading.Lock()
        self._closed = False
        with self._use() as db:
            db.execute("PRAGMA journal_mode=WAL")
        self._migrate()

    def _own(self) -> _Connection:
        connection: _Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            with self._registry:
                if self._closed:
                    raise StoreClosed(f"{self.path} is closed")
                connection = _Connection(self.path)
                self._connections.append(connection)
            self._local.connection = connection
        return connection

    @contextmanager
    def _use(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection, held for the duration of the block."""
        connection = self._own()
        with connection.busy:
            if self._closed:
                raise StoreClosed(f"{self.path} is closed")
            yield connection.db

    def _rows(self, name: str, /, **params: Any) -> list[sqlite3.Row]:
        """The rows of a named query."""
        # fetchall: the statement runs to its end, so no read snapshot is left open
        with self._use() as db:
            return db.execute(QUERIES[name], params).fetchall()

    def close(self) -> None:
        """Close every connection, each once no statement of its owner holds it; work
        that comes later raises StoreClosed instead of touching a closed handle."""
        with self._registry:
            self._closed = True
            connections, self._connections = self._connections, []
        for connection in connections:
            with connection.busy:
                connection.db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._use() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _migrate(self) -> None:
        with self._tx() as db:
            run(db, "schema_version_table")
            row = run(db, "schema_version").fetchone()
            version = row["version"] if row else 0
            if row is None:
                run(db, "schema_version_start")
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                code = "\n".join(
                    line for line in script.splitlines() if not line.lstrip().startswith("--")
                )
                for statement in filter(str.strip, code.split(";")):
                    db.execute(statement)
                run(db, "schema_version_set", version=number)

    @property
    def version(self) -> int:
        return int(self._rows("schema_version")[0][0])


def run(db: sqlite3.Connection, name: str, /, **params: Any) -> sqlite3.Cursor:
    """Run a named query on a transaction's connection."""
    return db.execute(QUERIES[name], params)


def fill(name: str, parts: Mapping[str, str]) -> str:
    """A named query with its {placeholders} filled by the store's own SQL fragments."""
    query = QUERIES[name]
    for key, part in parts.items():
        query = query.replace("{" + key + "}", part)
    return query
