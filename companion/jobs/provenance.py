"""A job's provenance record, made here and nowhere else, and the list of a project's
generated files that a store's AI disclosure asks for.

The record is made once, when the job's files are installed, kept with the job in the
store and written into each file's metadata (companion.install.provenance); a job
installed before records were kept gets one made from the store the same way.

The list's source of truth is the store's record of the files it wrote (path and sha256
of the bytes as installed, and the job), cross-checked with the disk: a file is listed
only while it is there holding exactly those bytes. The metadata inside the files is not
read for this: a user can copy, edit or strip it, and a copied file would carry a record
of a generation that did not make it; the store knows what went where."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from companion.install import Provenance, sha256_of
from companion.jobs.ask.request import JobKind, JobRequest
from companion.store import Job, Store

DEFAULT_MODEL = "service default"  # no model was named: the service chose its own
# Files that carry a record rather than being generated art themselves.
CARRIERS = frozenset({".meta", ".import", ".uid"})


def service_name(base_url: str) -> str:
    """The service's address without what may be secret: no user, password or query."""
    parts = urlsplit(base_url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path.rstrip('/')}"


def _picture_sha(asked: JobRequest) -> str:
    if asked.drop_hash:
        return asked.drop_hash
    try:
        return sha256_of(Path(asked.image))
    except OSError:  # moved or deleted since, or not a plain file: unknown, not guessed
        return ""


def record_of(store: Store, job: Job, service: str) -> Provenance:
    """The job's record: the one its files were installed with, else made now."""
    if job.provenance:
        return Provenance.from_dict(job.provenance)
    asked = JobRequest.of(job.request)
    maker = job  # the job that paid for the generation: a re-cut's parent
    if asked.kind == JobKind.RECUT and asked.parent:
        try:
            maker = store.job(asked.parent)
        except KeyError:
            maker = job
    made = JobRequest.of(maker.request)
    if maker.provenance:  # the service that made the generation a re-cut is cut from
        service = str(maker.provenance.get("service") or service)
    resolved_video = (maker.resolved or {}).get("video") or {}
    model = made.video.get("model") or resolved_video.get("model") or DEFAULT_MODEL
    seed = made.video.get("seed", resolved_video.get("seed"))
    return Provenance(
        job=job.id,
        service=service,
        model=str(model),
        prompt=made.prompt,
        seed=int(seed) if seed is not None else None,
        date=maker.created_at,
        credits=store.credit_moves(job.id)["spent"],
        generation=made.generation or "",
        source=Path(made.image).name,
        source_sha256=_picture_sha(made),
    )


def kept_record(store: Store, job: Job, service: str) -> Provenance:
    """The record to install job's files with, kept with the job first so an install
    resumed after a crash (and every later listing) carries the same one."""
    record = record_of(store, job, service)
    if not job.provenance:
        store.update_job(job.id, provenance=record.as_dict())
    return record


@dataclass(frozen=True)
class Listed:
    path: str  # relative to the project, with forward slashes
    record: Provenance

    def row(self) -> dict[str, Any]:
        """One line of the disclosure: the path, then the record's fields."""
        return {"path": self.path, **self.record.as_dict()}


def project_files(store: Store, project: Path, service: str) -> list[Listed]:
    """Every generated file in project the companion wrote that is still as it wrote
    it, with its job's record, by path."""
    root = project.resolve()
    listed: list[Listed] = []
    records: dict[str, Provenance | None] = {}  # by job: each made once per listing
    for written in store.written_files():
        path = Path(written.path)
        if not path.is_relative_to(root) or path.suffix in CARRIERS:
            continue
        if path.is_symlink():
            continue  # a link put in its place is not the file written
        try:
            if sha256_of(path) != written.sha256:
                continue  # replaced or edited since: not what was generated
        except OSError:
            continue  # deleted (or a folder, a FIFO in its place: NotPlainFile)
        if written.job_id not in records:
            try:
                job = store.job(written.job_id)
            except KeyError:  # a job no longer in the books: nothing to say of the file
                records[written.job_id] = None
            else:
                records[written.job_id] = record_of(store, job, service)
        record = records[written.job_id]
        if record is not None:
            listed.append(Listed(path.relative_to(root).as_posix(), record))
    return listed
