"""The rows the store hands out: a job (what was asked and the engine's progress beside
it), an asset of a job, a file written into a project."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any


def now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def day_start(moment: datetime | None = None) -> str:
    """The start of the UTC day of moment (now), as the ledger's stamps are written:
    budgets and spend per day count from here."""
    return (moment or datetime.now(UTC)).strftime("%Y-%m-%dT00:00:00Z")


def month_start(moment: datetime | None = None) -> str:
    """The start of the UTC month of moment (now), for budgets and spend per month."""
    return (moment or datetime.now(UTC)).strftime("%Y-%m-01T00:00:00Z")


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
    # Outputs of formats not known here, kept aside (companion.jobs.landing.aside: one object
    # each; a job stored before then holds plain strings).
    unknown_outputs: list[Any] | None = None
    resource: str | None = None  # the engine's playable resource, once installed
    clip_asset: str | None = None  # the task's generated video, kept for free re-cuts
    provenance: dict[str, Any] | None = None  # the record its installed files carry

    @property
    def kept_aside(self) -> list[dict[str, Any]]:
        """Its outputs kept aside: asset, format and media type (quoted), byte_size, path
        (None: still at the service) and note (why not downloaded)."""
        return [e for e in self.unknown_outputs or [] if isinstance(e, dict)]

    @property
    def clip_source(self) -> str:
        """The job whose kept video this one's is: a re-cut (or an import) has no video
        of its own and is cut from its parent's, so re-cutting a re-cut starts from it."""
        if self.kind == "recut":
            return str(self.request.get("parent") or self.id)
        return self.id


# The columns update_job may change, and those of them kept as JSON text.
JOB_FIELDS = frozenset(
    {
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
        "provenance",
    }
)
JSON_FIELDS = ("request", "resolved", "unknown_outputs", "provenance")


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


def job_from(row: sqlite3.Row) -> Job:
    values = dict(row)
    values["request"] = json.loads(values["request"])
    for encoded in ("resolved", "unknown_outputs", "provenance"):
        if values[encoded] is not None:
            values[encoded] = json.loads(values[encoded])
    values["approved"] = bool(values["approved"])
    values["sent"] = bool(values["sent"])
    return Job(**values)
