"""What a job looks like to its user, read once from the local books: its state and
progress, its quote and the credits moved for it, its outputs and where they were
installed, what was kept aside. The daemon answers it as JSON (its JobOut and
GenerationOut) and `companion jobs show` prints it; neither reads the books itself.

Reads the store alone (no client, engine or media code): `companion jobs show` loads it."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from typing import Any

from companion.jobs.lifecycle import State
from companion.store import Job, Store


def has_preview_source(formats: Set[str]) -> bool:
    """Whether a job's installed formats hold frames a GIF preview is made from: its GIF,
    its frames zip, or the spritesheet with its JSON."""
    return (
        "gif" in formats
        or "frames_zip" in formats
        or {"spritesheet", "spritesheet_json"} <= formats
    )


@dataclass(frozen=True)
class OutputView:
    asset: str
    format: str
    file: str
    bytes: int
    installed: str | None  # the installed file's path; None: not installed (yet)


@dataclass(frozen=True)
class Charge:
    """One move of credits in the ledger for the job (a hold, a charge, a release...)."""

    entry: str
    credits: int
    at: str


@dataclass(frozen=True)
class JobView:
    """error: None when there is none; loop: with a loop, its span and seam; kept_aside:
    the outputs of formats not known here, where each was kept (never in the project);
    preview: done, with installed frames a GIF preview is made from; ledger: read only
    when asked for (see job_view)."""

    id: str
    state: str
    name: str
    priority: int
    progress: float
    quote: int | None
    remote_id: str | None
    target_dir: str | None
    error: str | None
    resource: str | None
    created_at: str
    updated_at: str
    outputs: tuple[OutputView, ...]
    preview: bool
    loop: dict[str, Any] | None
    kept_aside: tuple[dict[str, Any], ...]
    ledger: tuple[Charge, ...] = ()


def job_view(store: Store, job: Job, *, ledger: bool = False) -> JobView:
    """The job as its user sees it; ledger: also read its credit moves (one more query,
    which a list of jobs does without)."""
    outputs = tuple(
        OutputView(a.id, a.format, a.file_name, a.byte_size, a.installed_path)
        for a in store.assets(job.id)
    )
    installed = {o.format for o in outputs if o.installed}
    return JobView(
        id=job.id,
        state=job.state,
        name=job.name,
        priority=job.priority,
        progress=job.progress,
        quote=job.quote,
        remote_id=job.remote_id,
        target_dir=job.target_dir,
        error=job.error,
        resource=job.resource,
        created_at=job.created_at,
        updated_at=job.updated_at,
        outputs=outputs,
        preview=job.state == State.DONE and has_preview_source(installed),
        loop=(job.resolved or {}).get("loop"),
        kept_aside=tuple(job.kept_aside),
        ledger=tuple(
            Charge(e["entry"], e["credits"], e["at"])
            for e in (store.ledger(job.id) if ledger else [])
        ),
    )
