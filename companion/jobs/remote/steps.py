"""A job at the service: quoted, held for approval when over a budget, its create sent
with the Idempotency-Key and exact body bytes persisted first (after an uncertain
outcome the original task is looked for by the job's marker in `metadata` on every page
of the list, and only if it is not there is the create resent, with the same key and
bytes; a create still being accepted is waited for, see creating.py), its price as
created held to the quote and the budgets (remote_books.py), then waited for, its
outputs recorded and its credits entered once the service has posted them. Part of the
Engine (see engine.py)."""

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
    NotFoundError,
    RateLimitError,
    TransportError,
    WaitTimeoutError,
)
from companion.api.keys import new_idempotency_key
from companion.api.schema import AnimationCreate, Task
from companion.jobs.ask.create_body import BodySteps
from companion.jobs.ask.request import VIDEO_GENERATION, JobRequest
from companion.jobs.crash import crash_point
from companion.jobs.errors import JobFailed
from companion.jobs.landing import aside
from companion.jobs.landing.assets import asked_formats, paid, sort_outputs
from companion.jobs.lifecycle import State
from companion.jobs.progress_writes import ProgressWrites
from companion.jobs.remote.books import (
    FOLLOW_SECONDS,
    allowed_price,
    created_price,
    credits_final,
    follow_credits,
    settle_task,
)
from companion.jobs.remote.bought import bought, generation_body
from companion.jobs.remote.creating import IN_PROGRESS_BOUND, create_when_accepted, find_marked
from companion.store import Job, Store, day_start, month_start
from companion.store.account import SharedAccount

log = logging.getLogger("companion.jobs")

CANCEL_WAIT = 60.0  # seconds a task cancelled for its price is waited for


@dataclass(frozen=True)
class Budget:
    per_job: int | None = None
    per_day: int | None = None
    per_month: int | None = None  # the calendar month (UTC), as `companion credits` counts
    # How far over its quote a task may be priced at create and still be made (config
    # price_margin_percent); beyond it the task is cancelled at once.
    price_margin_percent: float = 0.0


class RemoteSteps(BodySteps):
    """The Engine's quote, create and wait steps (over the making of create bodies)."""

    store: Store
    client: Client
    account: SharedAccount
    budget: Budget
    timeout: float
    in_progress_bound: float = IN_PROGRESS_BOUND
    credit_follow_seconds: float = FOLLOW_SECONDS
    on_progress: Callable[[Job, Task], None] | None
    _files_renewed: set[str]  # jobs whose create body was made again for a gone file
    _amove: Callable[..., Awaitable[Job]]

    async def _quote(self, job: Job) -> Job:
        buys = JobRequest.of(job.request).buys
        try:
            body, quote = await self.with_files(
                lambda: self._body(job), lambda made: self.price(made, buys)
            )
        except ValidationError as exc:
            raise JobFailed(f"the request is not valid: {exc.errors()[0]['msg']}") from exc
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
        # What is bought is sent: the video alone when its outputs are made here.
        sent = generation_body(body) if bought(job) == VIDEO_GENERATION else body
        payload = sent.model_dump_json().encode()
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
        kind = bought(job)  # what was bought: the video alone, or a one-click
        # Once a send may have happened, the original is looked for before any resend.
        original = await self._find_original(job, kind) if job.sent else None
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
                create = (
                    self.client.create_video_generation
                    if kind == VIDEO_GENERATION
                    else self.client.create_animation
                )
                original = await create_when_accepted(
                    lambda: create(body, idempotency_key=key),
                    bound=self.in_progress_bound,
                )
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
            except NotFoundError as exc:
                # A file the body names is gone (retention is not shown, spec 8): no task
                # was made, so its images go up again and a new body is sent, once.
                renewed = job.id not in self._files_renewed and await self.forget_files(
                    AnimationCreate.model_validate(job.resolved)
                )
                if not renewed:
                    raise JobFailed(f"the service refused the create: {exc}") from exc
                self._files_renewed.add(job.id)
                return await self._renew_files(job)
            except ApiStatusError as exc:
                if exc.status in (400, 402, 403, 404, 409, 413, 415, 422):
                    raise JobFailed(f"the service refused the create: {exc}") from exc
                raise
            if original is None:
                return await self._unknown(job)
        else:
            await self.account.acquire_slot(job.id, job.priority, present=True)
        crash_point("after_send")
        await self._price_as_created(job, original)
        await self._hold(job.id, created_price(original.credits))
        return await self._amove(job, State.RUNNING, remote_id=str(original.id))

    async def _renew_files(self, job: Job) -> Job:
        """job's create body made again with its images uploaded anew, under a new key
        (the old one made nothing), on disk before it is sent."""
        body = await self._body(job)
        sent = generation_body(body) if bought(job) == VIDEO_GENERATION else body
        return await asyncio.to_thread(
            self.store.update_job,
            job.id,
            resolved=body.model_dump(mode="json"),
            body=sent.model_dump_json().encode(),
            idempotency_key=new_idempotency_key("job"),
            sent=False,
        )

    async def _hold(self, job_id: str, credits: int) -> None:
        """The job's hold in the books made what the service holds for it (entered once,
        then only what it changed by)."""
        holds = [e["credits"] for e in self.store.ledger(job_id) if e["entry"] == "hold"]
        if not holds or sum(holds) != credits:
            await self.account.record(job_id, "hold", credits - sum(holds))

    async def _unknown(self, job: Job) -> Job:
        """Still being accepted after the bound: the task may exist and hold credits, so
        its quote is counted as held, and the job waits for a run to find it."""
        await self._hold(job.id, job.quote or 0)
        await self.account.release_slot(job.id)
        log.warning("job %s: the service was still accepting its create; unknown", job.id)
        return await self._amove(
            job,
            State.UNKNOWN,
            error=(
                f"the service was still accepting the create after {self.in_progress_bound:g} "
                f"s; the task may exist, so its {job.quote or 0} credits are counted as held. "
                f"Run the same command again (or companion jobs run) to resume job "
                f"{job.id[:8]}: it looks for that task first, and never pays for a second one"
            ),
        )

    async def _price_as_created(self, job: Job, task: Task) -> None:
        """Creation recalculates the price (4.4): a task that costs more than the user
        approved (plus the margin allowed), or than a budget has room for, is cancelled
        at once and the job fails saying what it cost."""
        price, quote = created_price(task.credits), job.quote or 0
        if price <= quote:
            return
        margin = self.budget.price_margin_percent
        why = None
        if price > allowed_price(quote, margin):
            allowed = f" plus the {margin:g} % margin allowed" if margin else ""
            why = f"over the {quote} credits quoted and approved{allowed}"
        else:
            own = self.store.charged(job.id)  # a hold counted while it was unknown
            if not job.approved and self.over_budget(price - own, largest=price):
                why = "over a budget in config.yaml"
            elif refused := await self.account.reserve(job.id, price, approved=job.approved):
                why = f"over {refused}"
        if why is not None:
            await self._cancel_for_price(job, task, price, why)

    async def _cancel_for_price(self, job: Job, task: Task, price: int, why: str) -> None:
        kind, task_id = str(task.object), str(task.id)
        await asyncio.to_thread(self.store.update_job, job.id, remote_id=task_id)
        await self._hold(job.id, price)
        log.warning("job %s: priced at %d credits at create, %s; cancelling", job.id, price, why)
        current = await self.client.cancel_task(kind, task_id)
        try:
            current = await self.client.wait_for_task(current, timeout=CANCEL_WAIT)
        except WaitTimeoutError as exc:
            assert isinstance(exc.task, Task)
            current = exc.task
        current = await follow_credits(self.client, current, seconds=self.credit_follow_seconds)
        credits = current.credits
        if current.is_terminal and credits_final(current):
            await settle_task(self.account, job.id, credits)
            cost = f"{credits.charged} charged, {credits.released + credits.refunded} released"
        else:
            cost = (
                f"{credits.held} still held at the service ({current.status}); the books "
                "follow it (companion credits)"
            )
        await asyncio.to_thread(self.store.update_job, job.id, remote_status=str(current.status))
        await self.account.release_slot(job.id)
        raise JobFailed(
            f"the service priced task {task_id} at {price} credits when it was created, {why}; "
            f"it was cancelled at once: {cost}. To make it at that price, raise "
            "price_margin_percent (or the budget) in config.yaml and run it again"
        )

    async def _find_original(self, job: Job, kind: str) -> Task | None:
        """The task this job already created, found by the marker in its metadata on
        every page of the list (in whatever order, at whatever page size)."""
        return (await find_marked(self.client, kind, job.id)).task

    async def _wait(self, job: Job) -> Job:
        assert job.remote_id
        await self.account.acquire_slot(job.id, job.priority, present=True)
        task = await self.client.get_task(bought(job), job.remote_id)
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
        # A video generation's one output is the video, exported here (see OutputSteps);
        # a one-click's outputs are each known by what they are (2.1: no order): the
        # generated video by its media, the rest by format, unknown formats kept aside.
        generation = bought(job) == VIDEO_GENERATION
        found = sort_outputs(
            task.outputs,
            asked=set() if generation else asked_formats(job.resolved),
            install_formats=asked.install_formats,
            succeeded=succeeded,
            finished_here=asked.finished_here or generation,
            name=job.name,
        )
        await asyncio.to_thread(
            self.store.add_assets,
            job.id,
            [(str(a.id), a.format, n, a.byte_size) for a, n in found.install],
        )
        # 2.3: the end is not the books' end. Read again until the credits are final;
        # past the bound the hold stays counted and the books follow it later.
        task = await follow_credits(self.client, task, seconds=self.credit_follow_seconds)
        if credits_final(task):
            await settle_task(self.account, job.id, task.credits)
        else:
            log.info("job %s: credits still %s at the service; followed later", job.id,
                     task.credits.status)  # fmt: skip
        await self.account.release_slot(job.id)
        error = f"{task.error.code}: {task.error.message}" if task.error else None
        clip = found.clip if succeeded or paid(task.credits) else None
        return await self._amove(
            job,
            State.DOWNLOADING,
            error=error,
            remote_status=str(task.status),
            clip_asset=str(clip.id) if clip is not None else None,
            unknown_outputs=aside.entries(found.aside) or None,
        )
