"""The same command again finds its own job: a request's fingerprint covers the input
images' bytes, every option and the target, so a re-run after a crash or Ctrl-C resumes
that job (its key and body already on disk) instead of paying again, and a re-run after
it is done finds its outputs still in place instead of paying for them again. One the
service made (and charged) whose outputs did not all go in is installed again, free."""

from __future__ import annotations

from pathlib import Path

from companion.install import sha256_of
from companion.jobs.ask.request import JobRequest
from companion.jobs.lifecycle import FINAL, State
from companion.jobs.remote.bought import made_here
from companion.store import Job, Store

FINGERPRINT = "fingerprint"


def unfinished(store: Store, digest: str) -> Job | None:
    """The unfinished job with this fingerprint, if an earlier run left one."""
    for job in store.jobs():
        if job.state not in FINAL and job.request.get(FINGERPRINT) == digest:
            return job
    return None


def already_made(store: Store, digest: str, target: Path) -> Job | None:
    """The latest done job with this fingerprint, if every output it installed is still
    in target as it wrote it (a file moved, removed, changed or written over by a later
    job since means the outputs are not there any more, and the job is made again)."""
    done = [j for j in store.jobs_with(FINGERPRINT, digest) if j.state == State.DONE]
    if not done:
        return None
    job = done[-1]
    installed = [Path(a.installed_path) for a in store.assets(job.id) if a.installed_path]
    if not installed:
        return None
    for path in installed:
        if not path.is_relative_to(target) or path.is_symlink() or not path.is_file():
            return None
        known = store.written_file(str(path))  # written last by this job, unchanged since
        if known is None or known.job_id != job.id or known.sha256 != sha256_of(path):
            return None
    return job


def paid_not_installed(store: Store, job: Job) -> bool:
    """The service made this job's video and charged for it, yet some of its outputs never
    went in (a full disk, a folder made read-only or taken away, a cancel while they were
    downloading): they are still at the service (or, finished here, made again from its
    kept clip), so installing them again costs nothing."""
    if job.state not in (State.FAILED, State.CANCELLED) or not job.remote_id:
        return False
    if job.remote_status != "succeeded":
        return False
    assets = store.assets(job.id)
    if made_here(job):  # made here from its kept clip, again
        return not assets or any(not row.installed_path for row in assets)
    return bool(assets) and any(not row.installed_path for row in assets)


def to_reinstall(store: Store, digest: str) -> Job | None:
    """The latest job with this fingerprint that was paid for and not installed, unless a
    later job with it was done (then its outputs were in place once, and are made again)."""
    for job in reversed(store.jobs_with(FINGERPRINT, digest)):
        if job.state == State.DONE:
            return None
        if paid_not_installed(store, job):
            return job
    return None


def made_before(
    store: Store, request: JobRequest, name: str, target: Path, image_sha256: str | None = None
) -> tuple[JobRequest, Job | None]:
    """request marked with its fingerprint, and the job that already made exactly it (done
    with its outputs in place), is making it now, or was paid for without its outputs
    going in (failed or cancelled: the caller retries it, free), if there is one.
    image_sha256, when the caller hashed the picture already, spares reading it again."""
    extra = [p for p in (request.last_frame, *request.references) if p]
    hashes = [image_sha256 or sha256_of(Path(request.image))]
    hashes += [sha256_of(Path(p)) for p in extra]
    marked = request.with_fingerprint(hashes, name, str(target))
    digest = str(marked.fingerprint)
    earlier = already_made(store, digest, target) or unfinished(store, digest)
    return marked, earlier or to_reinstall(store, digest)
