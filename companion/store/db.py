"""The companion's books: one SQLite database (WAL). Only companion.store speaks SQL;
its statements are named queries in sqlite/queries.sql and the schema's versioned
migrations are files in sqlite/migrations/ (read by the loader team mode shares,
sql_files.py), applied in order on open.

Every step that spends money or touches a project is written here before it happens:
a job's Idempotency-Key and exact body bytes before the create is sent, each remote
task id as soon as it is known, each download and install as it completes, and a credit
ledger of quotes, holds, charges, refunds and releases per job (ledger.py)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from companion.store.database import BUSY_SECONDS, MIGRATIONS, fill, run
from companion.store.errors import StateChanged
from companion.store.ledger import Ledger
from companion.store.records import (
    JOB_FIELDS,
    JSON_FIELDS,
    AssetRow,
    Job,
    WrittenFile,
    job_from,
    now,
)

__all__ = [
    "BUSY_SECONDS",
    "MIGRATIONS",
    "AssetRow",
    "Job",
    "Store",
    "WrittenFile",
    "now",
]


class Store(Ledger):
    """The books: jobs, projects, uploads, assets, the files written into projects, and
    the ledger (Ledger) over one database (Database)."""

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
        with self._tx() as db:
            run(
                db,
                "add_job",
                id=job_id,
                kind=kind,
                priority=priority,
                name=name,
                request=json.dumps(request),
                target_dir=target_dir,
                stamp=now(),
            )
        return self.job(job_id)

    def job(self, job_id: str) -> Job:
        rows = self._rows("job", id=job_id)
        if not rows:
            raise KeyError(job_id)
        return job_from(rows[0])

    def jobs(self, *, states: tuple[str, ...] | None = None) -> list[Job]:
        if states:
            rows = self._rows("jobs_in_states", states=json.dumps(list(states)))
        else:
            rows = self._rows("jobs")
        return [job_from(r) for r in rows]

    def job_with(self, request_key: str, value: str) -> Job | None:
        """The oldest job whose request has this value under this key."""
        rows = self._rows("job_with", key=f"$.{request_key}", value=value)
        return job_from(rows[0]) if rows else None

    def jobs_with(self, request_key: str, value: str) -> list[Job]:
        """Every job whose request has this value under this key, oldest first."""
        rows = self._rows("jobs_with", key=f"$.{request_key}", value=value)
        return [job_from(r) for r in rows]

    def update_job(self, job_id: str, *, expect_state: str | None = None, **fields: Any) -> Job:
        """Change a job; with `expect_state`, only while it is still in that state (else
        StateChanged: another hand, a cancel, moved it first)."""
        unknown = set(fields) - JOB_FIELDS
        if unknown:
            raise ValueError(f"cannot update {sorted(unknown)}")
        for encoded in JSON_FIELDS:
            if fields.get(encoded) is not None:
                fields[encoded] = json.dumps(fields[encoded])
        # Column names from JOB_FIELDS only; every value is a parameter.
        parts = {"assignments": ", ".join(f"{k} = :{k}" for k in fields)}
        if expect_state is None:
            query = fill("update_job", parts)
        else:
            query = fill("update_job_in_state", parts)
        params = {**fields, "updated_at": now(), "id": job_id, "expect_state": expect_state}
        with self._tx() as db:
            changed = db.execute(query, params).rowcount
        if not changed and expect_state is not None:
            raise StateChanged(f"job {job_id} is no longer {expect_state}")
        return self.job(job_id)

    # -- projects -----------------------------------------------------------------------

    def add_project(self, root: str, engine: str | None, settings: dict[str, Any]) -> None:
        """Register root, or update it: only the settings given change (and the engine,
        unless None); whatever else it had is kept, so registering again is harmless."""
        with self._tx() as db:
            row = run(db, "project", root=root).fetchone()
            if row is None:
                run(
                    db,
                    "add_project",
                    root=root,
                    engine=engine or "other",
                    settings=json.dumps(settings),
                    stamp=now(),
                )
                return
            merged = {**json.loads(row["settings"]), **settings}
            run(
                db,
                "update_project",
                engine=engine or row["engine"],
                settings=json.dumps(merged),
                root=root,
            )

    def remove_project(self, root: str) -> bool:
        """Forget a registered root (its files and jobs stay); False if it was unknown."""
        with self._tx() as db:
            return run(db, "remove_project", root=root).rowcount > 0

    def projects(self) -> list[dict[str, Any]]:
        rows = self._rows("projects")
        return [
            {"root": r["root"], "engine": r["engine"], **json.loads(r["settings"])} for r in rows
        ]

    # -- uploads ------------------------------------------------------------------------

    def upload_for(self, service: str, sha256: str) -> str | None:
        rows = self._rows("upload_for", service=service, sha256=sha256)
        return str(rows[0]["file_id"]) if rows else None

    def remember_upload(self, service: str, sha256: str, file_id: str) -> None:
        with self._tx() as db:
            run(db, "remember_upload", service=service, sha256=sha256, file_id=file_id, stamp=now())

    def forget_upload(self, service: str, sha256: str, file_id: str) -> None:
        with self._tx() as db:
            run(db, "forget_upload", service=service, sha256=sha256, file_id=file_id)

    # -- assets -------------------------------------------------------------------------

    def add_assets(self, job_id: str, rows: list[tuple[str, str, str, int]]) -> None:
        """(asset id, format, file name, byte size) for each output; known ones are kept."""
        with self._tx() as db:
            for asset_id, fmt, file_name, size in rows:
                run(
                    db,
                    "add_asset",
                    id=asset_id,
                    job_id=job_id,
                    format=fmt,
                    file_name=file_name,
                    byte_size=size,
                )

    def assets(self, job_id: str) -> list[AssetRow]:
        return [AssetRow(**dict(r)) for r in self._rows("assets", job_id=job_id)]

    def asset_staged(self, asset_id: str, path: str, sha256: str) -> None:
        with self._tx() as db:
            run(db, "asset_staged", path=path, sha256=sha256, id=asset_id)

    def asset_installed(self, asset_id: str, path: str) -> None:
        with self._tx() as db:
            run(db, "asset_installed", path=path, id=asset_id)

    # -- files written into projects -----------------------------------------------------

    def written_file(self, path: str) -> WrittenFile | None:
        rows = self._rows("written_file", path=path)
        return WrittenFile(**dict(rows[0])) if rows else None

    def written_by(self, job_id: str) -> list[WrittenFile]:
        """The files a job wrote that no later writer has taken over."""
        return [WrittenFile(**dict(r)) for r in self._rows("written_by", job_id=job_id)]

    def written_named(self, name: str) -> list[WrittenFile]:
        """Every file the companion wrote for an animation of this name, anywhere."""
        return [WrittenFile(**dict(r)) for r in self._rows("written_named", name=name)]

    def written_files(self) -> list[WrittenFile]:
        """Every file the companion wrote into any project, by path."""
        return [WrittenFile(**dict(r)) for r in self._rows("written_files")]

    def forget_written(self, path: str) -> None:
        with self._tx() as db:
            run(db, "forget_written", path=path)

    def record_written(self, path: str, sha256: str, job_id: str, name: str) -> None:
        with self._tx() as db:
            run(
                db,
                "record_written",
                path=path,
                sha256=sha256,
                job_id=job_id,
                name=name,
                stamp=now(),
            )
