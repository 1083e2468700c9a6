"""The companion's books: one SQLite database (WAL), the only module that speaks SQL.

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

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        state TEXT NOT NULL,
        priority INTEGER NOT NULL DEFAULT 1,
        name TEXT NOT NULL,
        request TEXT NOT NULL,
        target_dir TEXT,
        idempotency_key TEXT,
        body BLOB,
        remote_id TEXT,
        quote INTEGER,
        approved INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX jobs_state ON jobs(state);
    CREATE TABLE uploads (
        service TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        file_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (service, sha256)
    );
    CREATE TABLE assets (
        id TEXT PRIMARY KEY,
        job_id TEXT NOT NULL REFERENCES jobs(id),
        format TEXT NOT NULL,
        file_name TEXT NOT NULL,
        byte_size INTEGER NOT NULL,
        staged_path TEXT,
        sha256 TEXT,
        installed_path TEXT
    );
    CREATE INDEX assets_job ON assets(job_id);
    CREATE TABLE ledger (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id TEXT,
        entry TEXT NOT NULL CHECK (entry IN
            ('quote', 'hold', 'charge', 'refund', 'release', 'balance')),
        credits INTEGER NOT NULL,
        at TEXT NOT NULL
    );
    CREATE INDEX ledger_job ON ledger(job_id);
    """,
    # 2: balance snapshots also keep what the companion had committed at that moment, so
    # the books can be reconciled against GET /credits/balance.
    """
    ALTER TABLE ledger ADD COLUMN committed INTEGER;
    """,
    # 3: projects registered through the daemon's API (those in config.yaml are read
    # from there) and each job's last known progress, for the editor plugins.
    """
    CREATE TABLE projects (
        root TEXT PRIMARY KEY,
        engine TEXT NOT NULL,
        settings TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    ALTER TABLE jobs ADD COLUMN progress REAL NOT NULL DEFAULT 0;
    """,
    # 4: every file the companion put in a project (resolved path and sha256), with the
    # job and animation name that wrote it: only these may ever be replaced.
    """
    CREATE TABLE written_files (
        path TEXT PRIMARY KEY,
        sha256 TEXT NOT NULL,
        job_id TEXT NOT NULL,
        name TEXT NOT NULL,
        written_at TEXT NOT NULL
    );
    """,
)


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


class Store:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # the books survive a power cut
        self._db.execute("PRAGMA foreign_keys=ON")
        self._migrate()
        # Job and asset reads go through a connection of the reading thread's own: WAL
        # lets them proceed while a write on another thread waits for its fsync, so the
        # daemon's event loop never waits on the disk to read. (One reader shared by
        # threads whose statements overlap would keep one snapshot open and read stale.)
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []

    @property
    def _read(self) -> sqlite3.Connection:
        reader: sqlite3.Connection | None = getattr(self._local, "reader", None)
        if reader is None:
            reader = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            reader.row_factory = sqlite3.Row
            self._local.reader = reader
            with self._lock:
                self._readers.append(reader)
        return reader

    def close(self) -> None:
        with self._lock:
            for reader in self._readers:
                reader.close()
            self._readers.clear()
        self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _migrate(self) -> None:
        with self._tx() as db:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            version = row["version"] if row else 0
            if row is None:
                db.execute("INSERT INTO schema_version VALUES (0)")
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in filter(str.strip, script.split(";")):
                    db.execute(statement)
                db.execute("UPDATE schema_version SET version = ?", (number,))

    @property
    def version(self) -> int:
        return int(self._db.execute("SELECT version FROM schema_version").fetchone()[0])

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
        rows = self._read.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchall()
        if not rows:
            raise KeyError(job_id)
        return _job(rows[0])

    def jobs(self, *, states: tuple[str, ...] | None = None) -> list[Job]:
        if states:
            marks = ",".join("?" * len(states))
            rows = self._read.execute(
                f"SELECT * FROM jobs WHERE state IN ({marks}) ORDER BY priority, created_at",  # noqa: S608
                states,
            ).fetchall()
        else:
            rows = self._read.execute("SELECT * FROM jobs ORDER BY created_at").fetchall()
        return [_job(r) for r in rows]

    def job_with(self, request_key: str, value: str) -> Job | None:
        """The oldest job whose request has this value under this key."""
        row = self._db.execute(
            "SELECT * FROM jobs WHERE json_extract(request, ?) = ? ORDER BY created_at LIMIT 1",
            (f"$.{request_key}", value),
        ).fetchone()
        return None if row is None else _job(row)

    def jobs_with(self, request_key: str, value: str) -> list[Job]:
        """Every job whose request has this value under this key, oldest first."""
        rows = self._read.execute(
            "SELECT * FROM jobs WHERE json_extract(request, ?) = ? ORDER BY created_at",
            (f"$.{request_key}", value),
        ).fetchall()
        return [_job(r) for r in rows]

    def update_job(self, job_id: str, **fields: Any) -> Job:
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
        }
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"cannot update {sorted(unknown)}")
        if "request" in fields:
            fields["request"] = json.dumps(fields["request"])
        assignments = ", ".join(f"{k} = ?" for k in fields)
        with self._tx() as db:
            db.execute(
                f"UPDATE jobs SET {assignments}, updated_at = ? WHERE id = ?",  # noqa: S608
                (*fields.values(), now(), job_id),
            )
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
        rows = self._read.execute("SELECT * FROM projects ORDER BY root").fetchall()
        return [
            {"root": r["root"], "engine": r["engine"], **json.loads(r["settings"])} for r in rows
        ]

    # -- uploads ------------------------------------------------------------------------

    def upload_for(self, service: str, sha256: str) -> str | None:
        rows = self._read.execute(
            "SELECT file_id FROM uploads WHERE service = ? AND sha256 = ?", (service, sha256)
        ).fetchall()
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
        rows = self._read.execute(
            "SELECT * FROM assets WHERE job_id = ? ORDER BY file_name", (job_id,)
        ).fetchall()
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
        row = self._db.execute("SELECT * FROM written_files WHERE path = ?", (path,)).fetchone()
        return None if row is None else WrittenFile(**dict(row))

    def written_by(self, job_id: str) -> list[WrittenFile]:
        """The files a job wrote that no later writer has taken over."""
        rows = self._read.execute(
            "SELECT * FROM written_files WHERE job_id = ? ORDER BY path", (job_id,)
        ).fetchall()
        return [WrittenFile(**dict(r)) for r in rows]

    def written_named(self, name: str) -> list[WrittenFile]:
        """Every file the companion wrote for an animation of this name, anywhere."""
        rows = self._read.execute(
            "SELECT * FROM written_files WHERE name = ? ORDER BY path", (name,)
        ).fetchall()
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
        """Credits the companion's own jobs hold or spent: the charge of settled jobs, the
        hold of unsettled ones."""
        rows = self._db.execute(
            "SELECT job_id, entry, credits FROM ledger WHERE job_id IS NOT "
            "NULL AND entry IN ('hold', 'charge')"
        ).fetchall()
        per_job: dict[str, dict[str, int]] = {}
        for row in rows:
            per_job.setdefault(row["job_id"], {})[row["entry"]] = row["credits"]
        return sum(e.get("charge", e.get("hold", 0)) for e in per_job.values())

    def snapshot(self, available: int) -> tuple[int, int] | None:
        """Record a balance snapshot; return the previous (available, committed)."""
        with self._tx() as db:
            previous = db.execute(
                "SELECT credits, committed FROM ledger WHERE entry = "
                "'balance' ORDER BY seq DESC LIMIT 1"
            ).fetchone()
            db.execute(
                "INSERT INTO ledger (job_id, entry, credits, at, committed) "
                "VALUES (NULL, 'balance', ?, ?, ?)",
                (available, now(), self.committed()),
            )
        return None if previous is None else (previous["credits"], previous["committed"])

    def ledger(self, job_id: str | None = None) -> list[dict[str, Any]]:
        if job_id is None:
            rows = self._read.execute("SELECT * FROM ledger ORDER BY seq").fetchall()
        else:
            rows = self._read.execute(
                "SELECT * FROM ledger WHERE job_id = ? ORDER BY seq", (job_id,)
            ).fetchall()
        return [dict(r) for r in rows]

    def charged(self, job_id: str | None = None, since: str | None = None) -> int:
        """Net credits spent: charges (holds count while a job is unsettled)."""
        query = "SELECT job_id, entry, credits FROM ledger WHERE entry IN ('hold', 'charge')"
        params: list[Any] = []
        if job_id is not None:
            query += " AND job_id = ?"
            params.append(job_id)
        if since is not None:
            query += " AND at >= ?"
            params.append(since)
        totals: dict[str, dict[str, int]] = {}
        for row in self._read.execute(query, params).fetchall():
            totals.setdefault(row["job_id"], {}).setdefault(row["entry"], 0)
            totals[row["job_id"]][row["entry"]] += row["credits"]
        return sum(t.get("charge", t.get("hold", 0)) for t in totals.values())


def _job(row: sqlite3.Row) -> Job:
    values = dict(row)
    values["request"] = json.loads(values["request"])
    values["approved"] = bool(values["approved"])
    return Job(**values)
