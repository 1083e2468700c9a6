"""Pay once per generation. A request's remote part (the pictures' bytes, prompt, negative
prompt, every video option) is what the service is paid for; the rest is local work on
the clip the companion keeps. So a request whose remote part equals a generation already
paid for (its clip kept) spends nothing: it becomes a free re-cut of that clip with the
request's own frames, size, formats, name and folder, installed like any job (the
user's edits kept by the engine merges). A generation under way answers too: the re-cut
waits for it. Only an explicit new take (--again, "again": true, Generate again,
Variations) asks the service again. In team mode with a shared folder of clips
(team.clips), a teammate's paid generation answers too: its clip is copied here once (a
local record of that generation, charged nothing here) and re-cut like one's own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from companion.api.schema import ExportOptions
from companion.jobs.ask import defaults
from companion.jobs.ask.request import JobKind, JobRequest
from companion.jobs.lifecycle import FINAL, State
from companion.store import Job, Store
from companion.store.clips import ClipStore, SharedClip

GENERATION = "generation"  # the request key holding the remote part's fingerprint

Why = Literal["kept", "under_way", "team", "evicted", "no_video", "none"]


@dataclass(frozen=True)
class Answer:
    """Which paid generation answers a remote part, or why none does."""

    why: Why
    source: Job | None = None  # kept or under_way: the generation's own job
    evicted: Job | None = None  # evicted: the job whose clip the size cap let go
    unkept: Job | None = None  # no_video: the paid job whose task returned no whole video
    shared: SharedClip | None = None  # team: a teammate's clip of it, in the team's folder

    @property
    def free(self) -> bool:
        return self.source is not None or self.shared is not None

    @property
    def source_id(self) -> str | None:
        """The paid generation's job (a teammate's, in team mode)."""
        if self.source is not None:
            return self.source.id
        return self.shared.job if self.shared is not None else None

    def reason(self) -> str:
        """Why it is paid, in a sentence (empty when it is free)."""
        if self.why == "evicted" and self.evicted is not None:
            return (
                f"job {self.evicted.id[:8]} made this generation, but its clip was evicted "
                "by the clip store's size cap (clip_store_mb in config.yaml)"
            )
        if self.why == "no_video" and self.unkept is not None:
            return (
                f"job {self.unkept.id[:8]} made this generation, but the service returned "
                "no whole video for it (only the formats its export asked for), so there is "
                "no clip to re-cut"
            )
        if self.why == "none":
            return "no kept clip answers this generation"
        return ""


def _paid_clip(job: Job) -> bool:
    """The service made (and charged) this job's video: its task succeeded, or failed at
    a later stage leaving the charged video in its outputs (2.1, 3: usable outputs may
    remain), kept as the generation's clip."""
    if not job.remote_id:
        return False
    return job.remote_status == "succeeded" or (
        job.remote_status == "failed" and bool(job.clip_asset)
    )


def generation_answer(store: Store, clips: ClipStore | None, generation: str | None) -> Answer:
    """The newest generation of this remote part that answers it: done (or paid for)
    with its clip kept, or under way; else why not (none made, or its clip evicted)."""
    if not generation or clips is None:
        return Answer("none")
    evicted: Job | None = None
    unkept: Job | None = None
    for job in reversed(store.jobs_with(GENERATION, generation)):
        if job.kind != JobKind.ANIMATION:
            continue
        if job.state not in FINAL and job.state != State.AWAITING_APPROVAL:
            return Answer("under_way", source=job)
        if not _paid_clip(job):
            continue
        if clips.kept(job.id) is not None:
            return Answer("kept", source=job)
        if evicted is None and clips.was_evicted(job.id):
            evicted = job
        elif unkept is None and job.remote_status == "succeeded" and not job.clip_asset:
            unkept = job
    shared = clips.shared_clip(generation)
    if shared is not None:
        return Answer("team", shared=shared)
    if evicted is not None:
        return Answer("evicted", evicted=evicted)
    return Answer("no_video", unkept=unkept) if unkept else Answer("none")


def adopt(store: Store, clips: ClipStore, request: JobRequest, shared: SharedClip) -> Job:
    """A teammate's generation recorded here (done, charged nothing here: the team's books
    hold its charge) with its clip copied into this clip store, the one download."""
    about = shared.about
    job = store.add_job(
        JobKind.ANIMATION.value,
        str(about.get("name") or "team"),
        {
            **{k: v for k, v in request.stored().items() if k != "fingerprint"},
            "team_job": shared.job,
        },
        target_dir=str(clips.folder),
    )
    clips.keep(job.id, shared.path)
    remote = about.get("remote_id")
    return store.update_job(job.id, state=State.DONE.value, remote_status="succeeded",
                            remote_id=str(remote) if remote else "team", quote=0)  # fmt: skip


def waits_for_generation(store: Store, job: Job) -> bool:
    """A re-cut whose generation is still under way: it cannot start yet."""
    if job.kind != JobKind.RECUT or job.state != State.NEW:
        return False
    parent = job.request.get("parent")
    try:
        return bool(parent) and store.job(str(parent)).state not in FINAL
    except KeyError:
        return False


def as_recut(request: JobRequest, source: Job) -> JobRequest:
    """request as a free re-cut of source's clip: its local part (export, selection,
    formats, project) kept whole, nothing sent to the service. A clip made on a key
    colour is keyed out here as the service's export would have (see defaults)."""
    export = ExportOptions.model_validate(request.export)
    local = defaults.recut_local(request.video, export, request.local_export)
    return request.model_copy(
        update={"kind": JobKind.RECUT, "parent": source.id, "local_export": local}
    )


def settle(
    store: Store, clips: ClipStore | None, request: JobRequest, *, again: bool = False
) -> tuple[JobRequest, Answer]:
    """What to submit for a marked request (see JobRequest.with_fingerprint): a re-cut
    when a generation answers its remote part, else the request itself (paid)."""
    if again or request.kind != JobKind.ANIMATION:
        return request, Answer("none")
    found = generation_answer(store, clips, request.generation)
    if found.shared is not None and clips is not None:
        return as_recut(request, adopt(store, clips, request, found.shared)), found
    if found.source is None:
        return request, found
    return as_recut(request, found.source), found
