"""The companion's books: one SQLite database (WAL). Only companion.store speaks SQL;
the schema's versioned migrations are files in sqlite/migrations/ (read by the loader
team mode shares, sql_files.py), applied in order on open.

Every step that spends money or touches a project is written here before it happens:
a job's Idempotency-Key and exact body bytes before the create is sent, each remote
task id as soon as it is known, each download and install as it completes, and a credit
ledger of quotes, holds, charges, refunds and releases per job."""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.store.errors import StoreError
from companion.store.sql_files import SQLITE, migrations

# Migrations are only ever appended: a store at version N has run the first N of them.
MIGRATIONS: tuple[str, ...] = tuple(script for _, _, script in migrations(SQLITE))


def now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


@dataclass
class Job:
    id: str
    kind: str
    state: str
    priority: int
    name: str
    request: dict[str, Any]
    target_dir: str | None
    idempotency_key: str | None
    body: bytes | None
    remote_id: str | None
    quote: int | None
    approved: bool
    error: str | None
    created_at: str
    updated_at: str
    progress: float = 0.0
    # The engine's own progress, apart from what was asked (the request).
    resolved: dict[str, Any] | None = None  # the create body, resolved at quote time
    sent: bool = False  # a create may have gone out: look for it before any resend
    remote_status: str | None = None  # the task's final status
    unknown_outputs: list[str] | None = None  # formats returned that are not known here
    resource: str | None = None  # the engine's playable resource, once installed
    clip_asset: str | None = None  # the task's generated video, kept for free re-cuts


@dataclass
class AssetRow:
    id: str
    job_id: str
    format: str
    file_name: str
    byte_size: int
    staged_path: str | None
    sha256: str | None
    installed_path: str | None


@dataclass
class WrittenFile:
    path: str
    sha256: str
    job_id: str
    name: str
    written_at: str


class StateChanged(StoreError):
    """A job moved (a cancel, another runner) since it was read; nothing was written."""


class StoreClosed(StoreError, RuntimeError):
    """The store was closed; work still running when it was closed stops here."""


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


BUSY_SECONDS = 60.0  # another thread's (or process's) write waits, never fails


class Store:
    """The books. Every thread reads and writes through a connection of its own, opened
    on first use: WAL lets reads proceed while a write on another thread waits for its
    fsync, so the daemon's event loop never waits on the disk to read, and no
    connection is ever used by two threads at once. Writes of this process take turns
    on one lock; other processes are waited for by SQLite's busy timeout."""

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

    def _rows(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> list[sqlite3.Row]:
        # fetchall: the statement runs to its end, so no read snapshot is left open
        with self._use() as db:
            return db.execute(sql, params).fetchall()

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
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            version = row["version"] if row else 0
            if row is None:
                db.execute("INSERT INTO schema_version VALUES (0)")
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                code = "\n".join(
                    line for line in script.splitlines() if not line.lstrip().startswith("--")
                )
                for statement in filter(str.strip, code.split(";")):
                    db.execute(statement)
                db.execute("UPDATE schema_version SET version = ?", (number,))

    @property
    def version(self) -> int:
        return int(self._rows("SELECT version FROM schema_version")[0][0])

    # -- jobs ---------------------------------------------------------------------------

    def add_job(
        self,
        kind: str,
        name: str,
        request: dict[str, Any],
        *,
        priority: int = 1,
        target_dir: str | None = None,
    ) -> Job:
        job_id = str(uuid.uuid4())
        stamp = now()
        with self._tx() as db:
            db.execute(
                "INSERT INTO jobs (id, kind, state, priority, name, request, target_dir, "
                "created_at, updated_at) VALUES (?, ?, 'new', ?, ?, ?, ?, ?, ?)",
                (job_id, kind, priority, name, json.dumps(request), target_dir, stamp, stamp),
            )
        return self.job(job_id)

    def job(self, job_id: str) -> Job:
        # fetchall: the statement runs to its end, so no read snapshot is left open
        rows = self._rows("SELECT * FROM jobs WHERE id = ?", (job_id,))
        if not rows:
            raise KeyError(job_id)
        return _job(rows[0])

    def jobs(self, *, states: tuple[str, ...] | None = None) -> list[Job]:
        if states:
            marks = ",".join("?" * len(states))
            rows = self._rows(
                f"SELECT * FROM jobs WHERE state IN ({marks}) ORDER BY priority, created_at",  # noqa: S608
                states,
            )
        else:
            rows = self._rows("SELECT * FROM jobs ORDER BY created_at")
        return [_job(r) for r in rows]

    def job_with(self, request_key: str, value: str) -> Job | None:
        """The oldest job whose request has this value under this key."""
        rows = self._rows(
            "SELECT * FROM jobs WHERE json_extract(request, ?) = ? ORDER BY created_at LIMIT 1",
            (f"$.{request_key}", value),
        )
        return _job(rows[0]) if rows else None

    def jobs_with(self, request_key: str, value: str) -> list[Job]:
        """Every job whose request has this value under this key, oldest first."""
        rows = self._rows(
            "SELECT * FROM jobs WHERE json_extract(request, ?) = ? ORDER BY created_at",
            (f"$.{request_key}", value),
        )
        return [_job(r) for r in rows]

    def update_job(self, job_id: str, *, expect_state: str | None = None, **fields: Any) -> Job:
        """Change a job; with `expect_state`, only while it is still in that state (else
        StateChanged: another hand, a cancel, moved it first)."""
        allowed = {
            "state",
            "idempotency_key",
            "body",
            "remote_id",
            "quote",
            "approved",
            "error",
            "request",
            "target_dir",
            "progress",
            "resolved",
            "sent",
            "remote_status",
            "unknown_outputs",
            "resource",
            "clip_asset",
        }
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"cannot update {sorted(unknown)}")
        for encoded in ("request", "resolved", "unknown_outputs"):
            if fields.get(encoded) is not None:
                fields[encoded] = json.dumps(fields[encoded])
        assignments = ", ".join(f"{k} = ?" for k in fields)
        guard, extra = ("", ()) if expect_state is None else (" AND state = ?", (expect_state,))
        with self._tx() as db:
            changed = db.execute(
                f"UPDATE jobs SET {assignments}, updated_at = ? WHERE id = ?{guard}",  # noqa: S608
                (*fields.values(), now(), job_id, *extra),
            ).rowcount
        if not changed and expect_state is not None:
            raise StateChanged(f"job {job_id} is no longer {expect_state}")
        return self.job(job_id)

    # -- projects -----------------------------------------------------------------------

    def add_project(self, root: str, engine: str | None, settings: dict[str, Any]) -> None:
        """Register root, or update it: only the settings given change (and the engine,
        unless None); whatever else it had is kept, so registering again is harmless."""
        with self._tx() as db:
            row = db.execute("SELECT * FROM projects WHERE root = ?", (root,)).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO projects VALUES (?, ?, ?, ?)",
                    (root, engine or "other", json.dumps(settings), now()),
                )
                return
            merged = {**json.loads(row["settings"]), **settings}
            db.execute(
                "UPDATE projects SET engine = ?, settings = ? WHERE root = ?",
                (engine or row["engine"], json.dumps(merged), root),
            )

    def remove_project(self, root: str) -> bool:
        """Forget a registered root (its files and jobs stay); False if it was unknown."""
        with self._tx() as db:
            return db.execute("DELETE FROM projects WHERE root = ?", (root,)).rowcount > 0

    def projects(self) -> list[dict[str, Any]]:
        rows = self._rows("SELECT * FROM projects ORDER BY root")
        return [
            {"root": r["root"], "engine": r["engine"], **json.loads(r["settings"])} for r in rows
        ]

    # -- uploads ------------------------------------------------------------------------

    def upload_for(self, service: str, sha256: str) -> str | None:
        rows = self._rows(
            "SELECT file_id FROM uploads WHERE service = ? AND sha256 = ?", (service, sha256)
        )
        return str(rows[0]["file_id"]) if rows else None

    def remember_upload(self, service: str, sha256: str, file_id: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO uploads VALUES (?, ?, ?, ?)",
                (service, sha256, file_id, now()),
            )

    # -- assets -------------------------------------------------------------------------

    def add_assets(self, job_id: str, rows: list[tuple[str, str, str, int]]) -> None:
        """(asset id, format, file name, byte size) for each output; known ones are kept."""
        with self._tx() as db:
            for asset_id, fmt, file_name, size in rows:
                db.execute(
                    "INSERT OR IGNORE INTO assets (id, job_id, format, file_name, "
                    "byte_size) VALUES (?, ?, ?, ?, ?)",
                    (asset_id, job_id, fmt, file_name, size),
                )

    def assets(self, job_id: str) -> list[AssetRow]:
        rows = self._rows("SELECT * FROM assets WHERE job_id = ? ORDER BY file_name", (job_id,))
        return [AssetRow(**dict(r)) for r in rows]

    def asset_staged(self, asset_id: str, path: str, sha256: str) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE assets SET staged_path = ?, sha256 = ? WHERE id = ?",
                (path, sha256, asset_id),
            )

    def asset_installed(self, asset_id: str, path: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE assets SET installed_path = ? WHERE id = ?", (path, asset_id))

    # -- files written into projects -----------------------------------------------------

    def written_file(self, path: str) -> WrittenFile | None:
        rows = self._rows("SELECT * FROM written_files WHERE path = ?", (path,))
        return WrittenFile(**dict(rows[0])) if rows else None

    def written_by(self, job_id: str) -> list[WrittenFile]:
        """The files a job wrote that no later writer has taken over."""
        rows = self._rows("SELECT * FROM written_files WHERE job_id = ? ORDER BY path", (job_id,))
        return [WrittenFile(**dict(r)) for r in rows]

    def written_named(self, name: str) -> list[WrittenFile]:
        """Every file the companion wrote for an animation of this name, anywhere."""
        rows = self._rows("SELECT * FROM written_files WHERE name = ? ORDER BY path", (name,))
        return [WrittenFile(**dict(r)) for r in rows]

    def forget_written(self, path: str) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM written_files WHERE path = ?", (path,))

    def record_written(self, path: str, sha256: str, job_id: str, name: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO written_files VALUES (?, ?, ?, ?, ?)",
                (path, sha256, job_id, name, now()),
            )

    # -- ledger -------------------------------------------------------------------------

    def record(self, job_id: str | None, entry: str, credits: int) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO ledger (job_id, entry, credits, at) VALUES (?, ?, ?, ?)",
                (job_id, entry, credits, now()),
            )

    def settle(self, job_id: str, charged: int, refunded: int, released: int) -> None:
        """Record a job's final credit movements once; later calls change nothing."""
        with self._tx() as db:
            done = db.execute(
                "SELECT 1 FROM ledger WHERE job_id = ? AND entry IN "
                "('charge', 'refund', 'release')",
                (job_id,),
            ).fetchone()
            if done:
                return
            stamp = now()
            for entry, credits in (
                ("charge", charged),
                ("refund", refunded),
                ("release", released),
            ):
                if credits:
                    db.execute(
                        "INSERT INTO ledger (job_id, entry, credits, at) VALUES (?, ?, ?, ?)",
                        (job_id, entry, credits, stamp),
                    )
            if not (charged or refunded or released):
                db.execute(
                    "INSERT INTO ledger (job_id, entry, credits, at) VALUES (?, 'charge', 0, ?)",
                    (job_id, stamp),
                )

    def committed(self) -> int:
        """Credits the companion's own jobs hold or spent: the net charge of settled jobs,
        the hold of unsettled ones. A released hold is neither."""
        return self.charged()

    def snapshot(self, available: int) -> tuple[int, int] | None:
        """Record a balance snapshot; return the previous (available, committed). One
        equal to the previous is not written again, so looking often costs nothing and
        the last drift stays readable (last_drift) until the figures move."""
        with self._tx() as db:
            previous = db.execute(
                "SELECT credits, committed FROM ledger WHERE entry = "
                "'balance' ORDER BY seq DESC LIMIT 1"
            ).fetchone()
            committed = self.committed()
            if previous is not None and (previous["credits"], previous["committed"]) == (
                available,
                committed,
            ):
                return (previous["credits"], previous["committed"])
            db.execute(
                "INSERT INTO ledger (job_id, entry, credits, at, committed) "
                "VALUES (NULL, 'balance', ?, ?, ?)",
                (available, now(), committed),
            )
        return None if previous is None else (previous["credits"], previous["committed"])

    def ledger(self, job_id: str | None = None) -> list[dict[str, Any]]:
        if job_id is None:
            rows = self._rows("SELECT * FROM ledger ORDER BY seq")
        else:
            rows = self._rows("SELECT * FROM ledger WHERE job_id = ? ORDER BY seq", (job_id,))
        return [dict(r) for r in rows]

    def charged(self, job_id: str | None = None, since: str | None = None) -> int:
        """Credits spent or still held: net charges of settled jobs plus the holds of
        unsettled ones. A hold that was released (a cancel) is not spent."""
        moves = self.credit_moves(job_id, since)
        return moves["spent"] + moves["held"]

    def credit_moves(self, job_id: str | None = None, since: str | None = None) -> dict[str, int]:
        """Where the credits went, from the ledger rows at or after `since`: `spent` (net
        charges), `held` (holds of jobs not settled yet), `released` (holds given back)
        and `refunded` (charges given back; `spent` already excludes them).

        A job is settled once it has a charge, refund or release row; the service's
        `charged` is already net of refunds, so it is taken as it is."""
        query = (
            "SELECT job_id, entry, credits FROM ledger WHERE job_id IS NOT NULL AND "
            "entry IN ('hold', 'charge', 'refund', 'release')"
        )
        params: list[Any] = []
        if job_id is not None:
            query += " AND job_id = ?"
            params.append(job_id)
        if since is not None:
            query += " AND at >= ?"
            params.append(since)
        totals: dict[str, dict[str, int]] = {}
        for row in self._rows(query, params):
            entries = totals.setdefault(row["job_id"], {})
            entries[row["entry"]] = entries.get(row["entry"], 0) + row["credits"]
        moves = {"spent": 0, "held": 0, "released": 0, "refunded": 0}
        for entries in totals.values():
            settled = any(e in entries for e in ("charge", "refund", "release"))
            if settled:
                moves["spent"] += entries.get("charge", 0)
                moves["released"] += entries.get("release", 0)
                moves["refunded"] += entries.get("refund", 0)
            else:
                moves["held"] += entries.get("hold", 0)
        return moves

    def last_drift(self) -> tuple[int | None, str | None]:
        """Drift between the last two balance snapshots, and when the last was taken:
        (None, None) before two exist."""
        rows = self._rows(
            "SELECT credits, committed, at FROM ledger WHERE entry = 'balance' "
            "ORDER BY seq DESC LIMIT 2"
        )
        if len(rows) < 2 or rows[0]["committed"] is None or rows[1]["committed"] is None:
            return None, None
        latest, previous = rows
        drift = (latest["credits"] + latest["committed"]) - (
            previous["credits"] + previous["committed"]
        )
        return int(drift), str(latest["at"])


def _job(row: sqlite3.Row) -> Job:
    values = dict(row)
    values["request"] = json.loads(values["request"])
    for encoded in ("resolved", "unknown_outputs"):
        if values[encoded] is not None:
            values[encoded] = json.loads(values[encoded])
    values["approved"] = bool(values["approved"])
    values["sent"] = bool(values["sent"])
    return Job(**values)
