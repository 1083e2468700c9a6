"""A project's generations: every job that wrote into it, newest first, with what made it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.daemon.schema.requests import ClipOut, GenerationList, GenerationOut, OutputOut
from companion.jobs import FINAL, job_view, paid_not_installed
from companion.media import MediaError, probe
from companion.store import Job, Store
from companion.store.clips import ClipStore


class ClipInfo:
    """What the Generations panel shows of each kept clip; probed once per clip."""

    def __init__(self, clips: ClipStore | None) -> None:
        self.clips = clips
        self._seen: dict[str, ClipOut] = {}

    def __call__(self, job: Job) -> ClipOut:
        source = job.clip_source
        path = self.clips.kept(source) if self.clips is not None else None
        if path is None:
            self._seen.pop(source, None)
            return ClipOut(kept=False)
        known = self._seen.get(source)
        if known is not None:
            return known
        try:
            info = probe(path)
        except MediaError:
            return ClipOut(kept=True, bytes=path.stat().st_size)
        out = ClipOut(
            kept=True,
            bytes=path.stat().st_size,
            duration_seconds=info.duration,
            width=info.width,
            height=info.height,
        )
        self._seen[source] = out
        return out


KINDS = {"animation": "animate", "recut": "recut", "variation": "variation"}


def project_of(job: Job) -> str | None:
    install = job.request.get("install")
    return str(install["root"]) if isinstance(install, dict) and "root" in install else None


def generation(store: Store, job: Job, clip: ClipOut) -> GenerationOut:
    video: dict[str, Any] = job.request.get("video") or {}
    view = job_view(store, job)
    seed = video.get("seed")
    return GenerationOut(
        id=job.id,
        kind="variation" if job.request.get("variation_of") else KINDS.get(job.kind, "animate"),
        parent=job.request.get("parent") or job.request.get("variation_of"),
        state=job.state,
        error=job.error or "",
        name=job.name,
        project=project_of(job),
        target_dir=job.target_dir,
        resource=job.resource,
        prompt=str(job.request.get("prompt") or ""),
        negative_prompt=job.request.get("negative_prompt") or video.get("negative_prompt"),
        seed=seed if isinstance(seed, int) else None,
        model=video.get("model"),
        settings={k: v for k, v in job.request.items() if k in SETTINGS},
        cost_credits=0 if job.kind == "recut" else store.charged(job.id),
        created_at=job.created_at,
        finished_at=job.updated_at if job.state in FINAL else None,
        preview_gif=f"/api/v1/jobs/{job.id}/preview.gif" if view.preview else None,
        clip=clip,
        outputs=OutputOut.each(view),
        installable=paid_not_installed(store, job),
        character=part if isinstance(part := job.request.get("character"), dict) else None,
    )


# What fills the form again; the rest of a request is the daemon's own bookkeeping.
SETTINGS = (
    "variation_of",
    "image",
    "last_frame",
    "references",
    "prompt",
    "negative_prompt",
    "video",
    "export",
    "selection",
    "install",
    "parent",
    "source",
    "local_export",
)


def page(
    store: Store,
    project: str,
    clip_of: Callable[[Job], ClipOut],
    *,
    limit: int,
    before: str | None,
) -> GenerationList:
    """Newest first; `before` is the last id of the previous page."""
    jobs = [j for j in reversed(store.jobs()) if project_of(j) == project]
    if before is not None:
        ids = [j.id for j in jobs]
        jobs = jobs[ids.index(before) + 1 :] if before in ids else []
    shown = jobs[:limit]
    more = len(jobs) > limit
    return GenerationList(
        data=[generation(store, j, clip_of(j)) for j in shown],
        next=shown[-1].id if more and shown else None,
    )
