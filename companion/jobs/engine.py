"""Runs jobs through their lifecycle, resumable at every step from the store alone.

- Inputs (request_body.py): each image is uploaded once per content hash and its
  file_id reused; small images go inline as Base64 instead; an upload cut by a transport
  error is never replayed.
- Quote, create and wait (remote_steps.py): the Idempotency-Key and the exact body bytes
  are persisted before the create is sent; after an uncertain outcome the original task
  is looked for before any resend, with the same key and bytes.
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
import functools
import logging
import shutil
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from companion.api.client import Client
from companion.api.errors import RateLimitError
from companion.api.schema import Task
from companion.jobs.ask.request import JobKind, JobRequest, submit
from companion.jobs.errors import JobFailed as JobFailed
from companion.jobs.landing.outputs import OutputSteps
from companion.jobs.landing.staging import STAGING as STAGING
from companion.jobs.landing.staging import release_if_unused
from companion.jobs.lifecycle import FINAL, PAUSED, State, check
from companion.jobs.remote.books import follow_pending
from companion.jobs.remote.bought import bought
from companion.jobs.remote.steps import Budget as Budget
from companion.jobs.remote.steps import RemoteSteps
from companion.jobs.resume import paid_not_installed
from companion.store import Job, Store
from companion.store.account import LocalAccount, SharedAccount
from companion.store.clips import ClipStore
from companion.store.errors import StateChanged, TeamUnavailable

log = logging.getLogger("companion.jobs")

TEAM_RETRY = 1.0  # seconds between two tries while the team database is away


class Engine(RemoteSteps, OutputSteps):
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
        self._uploaded: dict[str, str] = {}
        self._files_renewed: set[str] = set()
        self._loop: asyncio.AbstractEventLoop | None = None  # where installs report back
        self._driving: Counter[str] = Counter()  # the jobs this engine is taking along now

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
        """A job that never reached the service starts again; one the service made and
        charged for whose outputs did not all go in downloads and installs them again
        (free: nothing is sent to be made)."""
        job = self.store.job(job_id)
        if paid_not_installed(self.store, job):
            return self._move(job, State.DOWNLOADING, error=None)
        if job.state not in (State.FAILED, State.CANCELLED) or job.remote_id:
            raise JobFailed(
                f"job {job_id} is {job.state}; only a job that never reached the service, "
                "or one paid for whose outputs did not go in, can be retried (this one's "
                "outputs are installed, or the service did not make them)"
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
            # best effort; polling goes on
            await self.client.cancel_task(bought(job), job.remote_id)
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
                    "its credits are spent; its outputs stay at the service: install them "
                    f"without paying again with companion jobs retry {job_id[:8]}, or "
                    "download them with companion assets download ASSET_ID --out FILE (ids: "
                    f"companion jobs show {job_id[:8]})"
                ),
            )
        return self.store.job(job_id)

    # -- running ------------------------------------------------------------------------

    async def run(self, job_id: str) -> Job:
        """Take a job as far as it can go now; safe to call again after any crash. A job
        whose create's outcome was unknown is resumed: its task is looked for first."""
        self._driving[job_id] += 1
        try:
            return await self._run(job_id)
        finally:
            self._driving[job_id] -= 1
            if not self._driving[job_id]:
                del self._driving[job_id]

    def driving(self, job_id: str) -> bool:
        """Whether this engine is taking the job along now."""
        return self._driving[job_id] > 0

    async def _run(self, job_id: str) -> Job:
        job = self.store.job(job_id)
        if job.state == State.UNKNOWN:
            job = await self._amove(job, State.CREATING)
        try:
            while job.state not in FINAL and job.state not in PAUSED:
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

    async def reconcile(self) -> dict[str, int | None]:
        """Compare the books with GET /credits/balance. While only this companion spends,
        available + committed stays constant between snapshots; any change is drift
        (another client of the account, or a disagreement to look into)."""
        await self.follow_books()
        available = (await self.client.get_credit_balance()).available
        books = await self.account.reconcile(available)
        if books["drift"]:
            log.warning("credit drift of %d since the last snapshot", books["drift"])
        return books

    async def follow_books(self) -> int:
        """Enter the credits the service posted after a job moved on (see remote_books);
        the number of jobs whose credits are still not final."""
        return await follow_pending(self.store, self.client, self.account)

    async def drain(self, *, parallel: int | None = None) -> list[Job]:
        """Run every unfinished job, editor jobs (priority 0) before folder batches, with
        at most concurrency + queue of them at the service at once (more would only meet
        QUEUE_LIMIT_EXCEEDED); creates and polls are paced by the client's pacer."""
        account = await self.client.refresh_limits()
        await self.follow_books()
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
