"""Runs jobs through their lifecycle, resumable at every step from the store alone.

- Inputs: each image is uploaded once per content hash and its file_id reused; small
  images go inline as Base64 instead (one round trip fewer); an upload cut by a transport
  error is never replayed: the image goes inline if it fits, or the job fails saying so.
- Create: the Idempotency-Key and the exact body bytes are persisted first. After an
  uncertain outcome the original task is looked for by the job's marker in `metadata`
  among recent tasks; only if it is not there is the create resent, with the same key
  and bytes.
- Outputs (outputs.py, the Engine's download, re-cut and install steps): downloaded
  into a hidden staging folder inside the target (same filesystem), then moved into
  place file by file; every pack is one file, so a project never holds a
  partial pack, and a move recorded once is never made twice.
- Books: quote, hold and the final charge, refund and release per job in the ledger.
- The account: windows, slots at the service, budget reservations, the ledger and
  uploads go through `self.account` (companion.store.account): this companion alone by
  default, or the whole team's in PostgreSQL. While the team database is unreachable a
  job waits where it is; nothing is created without its reservation and slot.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from companion.api.client import Client
from companion.api.errors import (
    ApiStatusError,
    DeadlineExceededError,
    RateLimitError,
    TransportError,
    UncertainRequestError,
)
from companion.api.keys import new_idempotency_key
from companion.api.schema import (
    AnimationCreate,
    FileImageInput,
    ImageInput,
    Task,
)
from companion.install.names import output_names, shown
from companion.jobs.crash import crash_point
from companion.jobs.errors import JobFailed as JobFailed
from companion.jobs.inputs import ImageReadError, LocalImage
from companion.jobs.lifecycle import FINAL, State, check
from companion.jobs.outputs import OutputSteps
from companion.jobs.request import JobKind, JobRequest, submit
from companion.jobs.staging import STAGING as STAGING
from companion.jobs.staging import release_if_unused
from companion.jobs.wanted import wanted
from companion.store import Job, Store
from companion.store.account import LocalAccount, SharedAccount, TeamUnavailable
from companion.store.clips import ClipStore
from companion.store.db import StateChanged

log = logging.getLogger("companion.jobs")

INLINE_LIMIT = 256 * 1024  # below this an image travels inline; above, upload once, reuse
INLINE_FALLBACK_LIMIT = 10 * 2**20  # the spec's per-image inline limit
RECENT_TASKS = 100
CLIP_FORMAT = "clip_video"  # the paid video every one-click task returns
TEAM_RETRY = 1.0  # seconds between two tries while the team database is away


@dataclass(frozen=True)
class Budget:
    per_job: int | None = None
    per_day: int | None = None
    per_month: int | None = None  # the calendar month (UTC), as `companion credits` counts


class Engine(OutputSteps):
    def __init__(
        self,
        store: Store,
        client: Client,
        service: str,
        *,
        budget: Budget | None = None,
        timeout: float = 900.0,
        on_change: Callable[[Job], None] | None = None,
        on_progress: Callable[[Job, Task], None] | None = None,
        account: SharedAccount | None = None,
        clips: ClipStore | None = None,
    ) -> None:
        self.store = store
        self.clips = clips  # where paid videos are kept for free re-cuts (None: not kept)
        self.client = client
        self.service = service  # uploads are remembered per service address
        self.budget = budget or Budget()
        self.timeout = timeout
        self.on_change = on_change
        self.on_progress = on_progress
        self.account: SharedAccount = account or LocalAccount(store, service)
        self._loop: asyncio.AbstractEventLoop | None = None  # where installs report back

    # -- submission and control -------------------------------------------------------

    def submit(
        self,
        request: JobRequest | Mapping[str, Any],
        *,
        name: str,
        target_dir: Path,
        priority: int = 1,
    ) -> Job:
        return submit(self.store, request, name=name, target_dir=target_dir, priority=priority)

    def _move(self, job: Job, state: State, **fields: Any) -> Job:
        check(job.state, state)
        job = self.store.update_job(job.id, expect_state=job.state, state=state.value, **fields)
        if self.on_change is not None:
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # on the install thread: listeners live on the loop
                assert self._loop is not None
                self._loop.call_soon_threadsafe(self.on_change, job)
            else:
                self.on_change(job)
        return job

    async def _amove(self, job: Job, state: State, **fields: Any) -> Job:
        """_move with the write (a durable SQLite commit) on a worker thread, so the event
        loop keeps serving while the disk syncs."""
        check(job.state, state)
        job = await asyncio.to_thread(
            functools.partial(
                self.store.update_job, job.id, expect_state=job.state, state=state.value, **fields
            )
        )
        if self.on_change is not None:
            self.on_change(job)
        return job

    def approve(self, job_id: str) -> Job:
        job = self.store.job(job_id)
        if job.state != State.AWAITING_APPROVAL:
            raise JobFailed(f"job {job_id} is {job.state}, not awaiting approval")
        return self._move(job, State.QUOTED, approved=1)

    def retry(self, job_id: str) -> Job:
        job = self.store.job(job_id)
        if job.state not in (State.FAILED, State.CANCELLED) or job.remote_id:
            raise JobFailed(
                f"job {job_id} is {job.state}; only a job that never reached the "
                "service can be retried (its outputs, if any, are installed)"
            )
        return self._move(job, State.NEW, error=None, idempotency_key=None, body=None)

    async def cancel(self, job_id: str) -> Job:
        for _ in range(3):
            try:
                return await self._cancel(job_id)
            except StateChanged:
                continue  # the runner moved it meanwhile: cancel what it is now
        return self.store.job(job_id)

    async def _cancel(self, job_id: str) -> Job:
        job = self.store.job(job_id)
        if job.state in (State.NEW, State.QUOTED, State.AWAITING_APPROVAL):
            await self._forget(job_id)
            return self._move(job, State.CANCELLED, error="cancelled before it was sent")
        if job.state == State.RUNNING and job.remote_id:
            await self.client.cancel_animation(job.remote_id)  # best effort; polling goes on
        if job.state in (State.DOWNLOADING, State.INSTALLING):
            # The service has finished (and charged) the task: only the local install is
            # left, and it is given up. Files already installed stay where they are.
            if job.target_dir:
                target = Path(job.target_dir)
                await asyncio.to_thread(shutil.rmtree, target / STAGING / job.id, True)
                await asyncio.to_thread(release_if_unused, target)
            return await self._amove(
                job,
                State.FAILED,
                error=(
                    f"cancelled while {job.state}: the service had finished the task, so "
                    "its credits are spent; its outputs stay at the service: download them "
                    "with companion assets download ASSET_ID --out FILE (ids: companion "
                    f"jobs show {job_id[:8]})"
                ),
            )
        return self.store.job(job_id)

    # -- running ------------------------------------------------------------------------

    async def run(self, job_id: str) -> Job:
        """Take a job as far as it can go now; safe to call again after any crash."""
        job = self.store.job(job_id)
        try:
            while job.state not in FINAL and job.state != State.AWAITING_APPROVAL:
                try:
                    job = await self._step(job)
                except RateLimitError:
                    # Someone else shares the account: learn its limits again, then go on.
                    await self.client.refresh_limits()
                    job = self.store.job(job_id)
                except TeamUnavailable:
                    # The team database is away: wait where we are, holding what we hold.
                    await asyncio.sleep(TEAM_RETRY)
                    job = self.store.job(job_id)
                except StateChanged:
                    # A cancel moved it meanwhile: nothing of this step was written (and,
                    # before a create, nothing was sent); the job stays as the cancel left it.
                    return self.store.job(job_id)
        except JobFailed as exc:
            await self._forget(job_id)
            job = await self._amove(self.store.job(job_id), State.FAILED, error=str(exc))
        return job

    async def _forget(self, job_id: str) -> None:
        """Give back a reservation and slot the job will not use (leases end it anyway)."""
        try:
            await self.account.forget(job_id)
        except TeamUnavailable:
            log.info("job %s: its team reservation ends with its lease", job_id)

    async def _team_ready(self) -> None:
        if self.account.shared and not self.client.pacer.configured:
            await self.client.refresh_limits()  # the team paces and counts slots by them

    async def _step(self, job: Job) -> Job:
        state = State(job.state)
        await self._team_ready()
        if state is State.NEW and job.kind == JobKind.RECUT:
            return await self._recut(job)
        if state is State.NEW:
            return await self._quote(job)
        if state is State.QUOTED:
            return await self._prepare_create(job)
        if state is State.CREATING:
            return await self._create(job)
        if state is State.RUNNING:
            return await self._wait(job)
        if state is State.DOWNLOADING:
            return await self._download(job)
        if state is State.INSTALLING:
            return await self._install_off_loop(job)
        raise AssertionError(state)

    async def _quote(self, job: Job) -> Job:
        try:
            body = await self._body(job)
        except ValidationError as exc:
            raise JobFailed(f"the request is not valid: {exc.errors()[0]['msg']}") from exc
        try:
            quote = await self.client.quote_animation(body)
        except ApiStatusError as exc:
            if exc.status in (400, 402, 404, 413, 415, 422):
                raise JobFailed(f"the service refused the request: {exc}") from exc
            raise
        await self.account.record(job.id, "quote", quote.credits)
        return await self._amove(
            job,
            State.QUOTED,
            quote=quote.credits,
            resolved=body.model_dump(mode="json"),
        )

    async def _prepare_create(self, job: Job) -> Job:
        quote = job.quote or 0
        if not job.approved and self.over_budget(quote):
            log.info("job %s waits for approval: %d credits is over the budget", job.id, quote)
            return await self._amove(job, State.AWAITING_APPROVAL)
        refused = await self.account.reserve(job.id, quote, approved=job.approved)
        if refused is not None:
            log.info("job %s waits for approval: %d credits is over %s", job.id, quote, refused)
            return await self._amove(job, State.AWAITING_APPROVAL)
        body = AnimationCreate.model_validate(job.resolved)
        payload = body.model_dump_json().encode()
        # Key and bytes are on disk before anything is sent.
        job = await self._amove(
            job, State.CREATING, idempotency_key=new_idempotency_key("job"), body=payload
        )
        crash_point("after_persist")
        return job

    def over_budget(self, quote: int) -> bool:
        if self.budget.per_job is not None and quote > self.budget.per_job:
            return True
        today = _today()
        month = today[:8] + "01T00:00:00Z"
        for limit, since in ((self.budget.per_day, today), (self.budget.per_month, month)):
            if limit is not None and self.store.charged(since=since) + quote > limit:
                return True
        return False

    async def _create(self, job: Job) -> Job:
        key, body = job.idempotency_key, job.body
        assert key and body
        # Once a send may have happened, the original is looked for before any resend.
        original = await self._find_original(job) if job.sent else None
        if original is None:
            # The reservation made at quote time is renewed (or, if its lease ran out while
            # this companion was away, made again) before anything is sent.
            refused = await self.account.reserve(job.id, job.quote or 0, approved=job.approved)
            if refused is not None:
                raise JobFailed(f"no room left in {refused}; retry the job when there is")
            await self.account.acquire_slot(job.id, job.priority)
            if not job.sent:
                job = await asyncio.to_thread(self.store.update_job, job.id, sent=True)
            try:
                original = await self.client.create_animation(body, idempotency_key=key)
            except (TransportError, DeadlineExceededError) as exc:
                # Uncertain: the task may exist. The next pass looks for it, then resends.
                log.info(
                    "create of job %s uncertain (%s); will look for it and resend",
                    job.id,
                    type(exc).__name__,
                )
                await asyncio.sleep(1.0)
                return job
            except RateLimitError:
                await self.client.refresh_limits()
                return job
            except ApiStatusError as exc:
                if exc.status in (400, 402, 403, 404, 409, 413, 415, 422):
                    raise JobFailed(f"the service refused the create: {exc}") from exc
                raise
        else:
            await self.account.acquire_slot(job.id, job.priority, present=True)
        crash_point("after_send")
        if not any(e["entry"] == "hold" for e in self.store.ledger(job.id)):
            held = original.credits.held or original.credits.quoted
            await self.account.record(job.id, "hold", held)
        return await self._amove(job, State.RUNNING, remote_id=str(original.id))

    async def _find_original(self, job: Job) -> Task | None:
        """The task this job already created, found by the marker in its metadata."""
        seen = 0
        async for task in self.client.iter_tasks("animation", page_size=50):
            if task.metadata.get("companion_job") == job.id:
                return task
            seen += 1
            if seen >= RECENT_TASKS:
                break
        return None

    async def _wait(self, job: Job) -> Job:
        assert job.remote_id
        await self.account.acquire_slot(job.id, job.priority, present=True)
        task = await self.client.get_animation(job.remote_id)
        crash_point("mid_poll")

        loop = asyncio.get_running_loop()

        def progressed(current: Task) -> None:
            # Progress is written on a worker thread, not waited for: it is only a display.
            progress = float(current.progress)
            loop.run_in_executor(
                None, functools.partial(self.store.update_job, job.id, progress=progress)
            )
            if self.on_progress is not None:
                self.on_progress(dataclasses.replace(job, progress=progress), current)

        progressed(task)  # the first read may already be the last
        task = await self.client.wait_for_task(task, timeout=self.timeout, on_progress=progressed)
        outputs = wanted(
            task.outputs, JobRequest.of(job.request).install_formats, task.status == "succeeded"
        )
        names = output_names([a.format for a in outputs], job.name)
        known = [(a, n) for a, n in zip(outputs, names, strict=True) if n is not None]
        # A format our table does not know never becomes a path: it is left at the
        # service, and the job fails naming it once the known outputs are in.
        unknown = [
            f"{shown(a.format)} (asset {a.id})"
            for a, n in zip(outputs, names, strict=True)
            if n is None
        ]
        await asyncio.to_thread(
            self.store.add_assets,
            job.id,
            [(str(a.id), a.format, n, a.byte_size) for a, n in known],
        )
        credits = task.credits
        await self.account.settle(job.id, credits.charged, credits.refunded, credits.released)
        await self.account.release_slot(job.id)
        error = f"{task.error.code}: {task.error.message}" if task.error else None
        clip = next((a for a in task.outputs if a.format == CLIP_FORMAT), None)
        return await self._amove(
            job,
            State.DOWNLOADING,
            error=error,
            remote_status=str(task.status),
            clip_asset=str(clip.id) if clip is not None else None,
            unknown_outputs=unknown or None,
        )

    async def reconcile(self) -> dict[str, int | None]:
        """Compare the books with GET /credits/balance. While only this companion spends,
        available + committed stays constant between snapshots; any change is drift
        (another client of the account, or a disagreement to look into)."""
        available = (await self.client.get_credit_balance()).available
        books = await self.account.reconcile(available)
        if books["drift"]:
            log.warning("credit drift of %d since the last snapshot", books["drift"])
        return books

    async def drain(self, *, parallel: int | None = None) -> list[Job]:
        """Run every unfinished job, editor jobs (priority 0) before folder batches, with
        at most concurrency + queue of them at the service at once (more would only meet
        QUEUE_LIMIT_EXCEEDED); creates and polls are paced by the client's pacer."""
        account = await self.client.refresh_limits()
        slots = parallel or account.limits.concurrency + account.limits.queue
        gate = asyncio.Semaphore(slots)
        waiting = [
            j
            for j in self.store.jobs()
            if j.state not in FINAL and j.state != State.AWAITING_APPROVAL
        ]
        waiting.sort(key=lambda j: (j.priority, j.created_at))

        async def one(job_id: str) -> Job:
            async with gate:
                return await self.run(job_id)

        # One job's trouble never stops the others: every job runs to where it can go,
        # then the first error (the service away, say) is raised for the caller to report.
        ran = await asyncio.gather(*(one(j.id) for j in waiting), return_exceptions=True)
        for outcome in ran:
            if isinstance(outcome, BaseException):
                raise outcome
        return [outcome for outcome in ran if isinstance(outcome, Job)]

    # -- inputs -------------------------------------------------------------------------

    async def _body(self, job: Job) -> AnimationCreate:
        return await self.body_for(job.request, name=job.name, job_id=job.id)

    async def quote(self, request: JobRequest | Mapping[str, Any], name: str) -> int:
        """What a request would cost, without creating anything."""
        body = await self.body_for(request, name=name, job_id=None)
        return (await self.client.quote_animation(body)).credits

    async def body_for(
        self, request: JobRequest | Mapping[str, Any], *, name: str, job_id: str | None
    ) -> AnimationCreate:
        asked = JobRequest.of(request)
        first = await self._image(Path(asked.image))
        last = await self._image(Path(asked.last_frame)) if asked.last_frame else None
        references = [await self._image(Path(p)) for p in asked.references]
        metadata: dict[str, str] = {"name": name}
        if job_id is not None:
            metadata["companion_job"] = job_id  # how an uncertain create is found again
        return AnimationCreate.model_validate(
            {
                "input": {
                    "first_frame": first.model_dump(mode="json"),
                    "last_frame": last.model_dump(mode="json") if last else None,
                    "reference_images": [r.model_dump(mode="json") for r in references],
                },
                "prompt": asked.prompt,
                **({"negative_prompt": asked.negative_prompt} if asked.negative_prompt else {}),
                "video": asked.video,
                "export": asked.export,
                "selection": asked.selection,
                "metadata": metadata,
            }
        )

    async def _image(self, path: Path) -> ImageInput:
        try:
            image = await asyncio.to_thread(LocalImage.read, path)  # off the event loop
        except ImageReadError as exc:
            raise JobFailed(str(exc)) from exc
        small = image.size <= INLINE_LIMIT
        known = await self.account.upload_for(image.sha256, claim=not small)
        if known is not None:
            return FileImageInput(file_id=known)
        if small:
            return image.inline()
        try:
            uploaded = await image.upload(self.client)
        except Exception as exc:
            await self.account.drop_claim(image.sha256)  # another member may try it
            if not isinstance(exc, UncertainRequestError):
                raise
            if image.size <= INLINE_FALLBACK_LIMIT:
                log.info("upload of %s was cut off; sending it inline instead", path.name)
                return image.inline()
            raise JobFailed(
                f"{path}: the upload was cut off and the image is too large to "
                "send inline; try again"
            ) from exc
        await self.account.remember_upload(image.sha256, str(uploaded.file_id))
        return uploaded


def _today() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT00:00:00Z")
