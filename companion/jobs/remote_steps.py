"""A job at the service: quoted, held for approval when over a budget, its create sent
with the Idempotency-Key and exact body bytes persisted first (after an uncertain
outcome the original task is looked for by the job's marker in `metadata` among recent
tasks, and only if it is not there is the create resent, with the same key and bytes),
then waited for, its outputs recorded and its credits settled. Part of the Engine (see
engine.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import ValidationError

from companion.api.client import Client
from companion.api.errors import (
    ApiStatusError,
    DeadlineExceededError,
    RateLimitError,
    TransportError,
)
from companion.api.keys import new_idempotency_key
from companion.api.schema import AnimationCreate, Task
from companion.install import output_names, shown
from companion.jobs.crash import crash_point
from companion.jobs.errors import JobFailed
from companion.jobs.lifecycle import State
from companion.jobs.progress_writes import ProgressWrites
from companion.jobs.request import JobRequest
from companion.jobs.request_body import BodySteps
from companion.jobs.wanted import wanted
from companion.store import Job, Store, day_start, month_start
from companion.store.account import SharedAccount

log = logging.getLogger("companion.jobs")

RECENT_TASKS = 100
CLIP_FORMAT = "clip_video"  # the paid video every one-click task returns


@dataclass(frozen=True)
class Budget:
    per_job: int | None = None
    per_day: int | None = None
    per_month: int | None = None  # the calendar month (UTC), as `companion credits` counts


class RemoteSteps(BodySteps):
    """The Engine's quote, create and wait steps (over the making of create bodies)."""

    store: Store
    client: Client
    account: SharedAccount
    budget: Budget
    timeout: float
    on_progress: Callable[[Job, Task], None] | None
    _amove: Callable[..., Awaitable[Job]]

    async def _quote(self, job: Job) -> Job:
        try:
            body = await self._body(job)
        except ValidationError as exc:
            raise JobFailed(f"the request is not valid: {exc.errors()[0]['msg']}") from exc
        try:
            quote = await self.client.quote_animation(body)
        except ApiStatusError as exc:
            if exc.status in (400, 402, 404, 413, 415, 422):
                # Refused at quote: nothing is held or charged yet, and the user is told so.
                raise JobFailed(
                    f"the service refused the request: {exc}; nothing was spent"
                ) from exc
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

    def over_budget(self, quote: int, largest: int | None = None) -> bool:
        """quote is over a budget. largest: the dearest job of several quoted as one
        (a character's moves), held to the per-job budget while quote is their total."""
        one = quote if largest is None else largest
        if self.budget.per_job is not None and one > self.budget.per_job:
            return True
        moment = datetime.now(UTC)  # one instant: day and month agree at midnight
        periods = (
            (self.budget.per_day, day_start(moment)),
            (self.budget.per_month, month_start(moment)),
        )
        for limit, since in periods:
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

        writes = ProgressWrites(self.store, job.id)

        def progressed(current: Task) -> None:
            progress = float(current.progress)
            writes.put(progress)  # only a display: polling does not wait for the disk
            if self.on_progress is not None:
                self.on_progress(dataclasses.replace(job, progress=progress), current)

        progressed(task)  # the first read may already be the last
        try:
            task = await self.client.wait_for_task(
                task, timeout=self.timeout, on_progress=progressed
            )
        finally:
            await writes.finish()  # before anyone may close the store
        asked, succeeded = JobRequest.of(job.request), task.status == "succeeded"
        # Finished here: its outputs are exported from the kept clip (see OutputSteps),
        # the service's own stay at the service.
        outputs = (
            []
            if asked.finished_here and succeeded
            else wanted(task.outputs, asked.install_formats, succeeded)
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
