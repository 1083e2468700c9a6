"""The daemon put together: its worker pool that runs jobs through the engine, the
watched project inboxes, and the application that serves the routes of each group
(status, projects, quote and animate, jobs, generations) behind the security guard."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from pathlib import Path
from typing import Any

from aiohttp import web

from companion.api.errors import CompanionApiError
from companion.daemon import registry
from companion.daemon.http.events import Broker
from companion.daemon.http.host import Earlier, Prepared
from companion.daemon.http.middleware import errors
from companion.daemon.http.security import MAX_BODY, guard
from companion.daemon.inbox.watch import ProjectWatcher
from companion.daemon.reach import Reach, unreachable
from companion.daemon.routes.animate import AnimateRoutes
from companion.daemon.routes.batch import BatchRoutes
from companion.daemon.routes.character import CharacterRoutes
from companion.daemon.routes.generation import GenerationRoutes
from companion.daemon.routes.jobs import JobRoutes
from companion.daemon.routes.projects import ProjectRoutes
from companion.daemon.routes.status import StatusRoutes
from companion.daemon.routes.status_page import CODES, TOKEN, LinkCodes, page, status_link
from companion.daemon.schema.requests import AnimateIn, JobOut
from companion.jobs import (
    FINAL,
    Engine,
    JobRequest,
    State,
    cached_models,
    job_view,
    live_models,
    names_in,
    settle,
    waits_for_generation,
)
from companion.store import Job

log = logging.getLogger("companion.daemon")
RECUT_RETRY = 0.5  # seconds before a re-cut waiting for its generation is queued again


class Daemon:
    def __init__(
        self,
        engine: Engine,
        *,
        home: Path,
        token: str,
        sandbox: bool,
        service_label: str,
        workers: int = 4,
    ) -> None:
        self.engine = engine
        self.store = engine.store
        self.home = home
        self.token = token
        self.sandbox = sandbox
        self.service_label = service_label
        self.broker = Broker()
        self.port = 0
        self._queue: asyncio.PriorityQueue[tuple[int, int, str]] = asyncio.PriorityQueue()
        self._order = itertools.count()
        self._queued: set[str] = set()
        self._workers: list[asyncio.Task[None]] = []
        self._following: asyncio.Task[None] | None = None
        self._worker_count = workers
        self.watchers: dict[str, ProjectWatcher] = {}
        # Whether the service answers; set by the server before start (None: assume so).
        self.reach: Reach | None = None
        self.link_codes = LinkCodes()
        self.stable_seconds = 0.5
        self._loop: asyncio.AbstractEventLoop | None = None
        self.status_routes = StatusRoutes(self)
        self.project_routes = ProjectRoutes(self)
        self.animate_routes = AnimateRoutes(self)
        self.character_routes = CharacterRoutes(self, self.animate_routes)
        self.job_routes = JobRoutes(self)
        self.generation_routes = GenerationRoutes(self)
        self.batch_routes = BatchRoutes(self)
        engine.on_change = self._changed
        engine.on_progress = lambda job, task: self._changed(job)

    # -- jobs ----------------------------------------------------------------------------

    def _changed(self, job: Job) -> None:
        loop = self._loop
        if loop is not None and not _on_loop(loop):  # work moved to a thread reports here
            loop.call_soon_threadsafe(self._changed, job)
            return
        self.broker.publish("job", self._job_out(job).model_dump(mode="json"))
        if job.state in FINAL:
            for watcher in self.watchers.values():
                watcher.finished(job)

    async def watch(self, project: dict[str, Any]) -> None:
        """Watch a project's inbox (again, with new settings, if it was watched)."""
        if not project.get("inbox"):
            return
        old = self.watchers.pop(project["root"], None)
        if old is not None:
            await old.stop()
        # The listing kept for the drops (read on worker threads, from the cache only):
        # which listed model keys is decided for them as for every other way in.
        with contextlib.suppress(CompanionApiError):
            await live_models(self.engine.client, self.home / "cache", self.service_label)
        watcher = ProjectWatcher(
            project,
            self._submit_drop,
            self._jobs_with_hash,
            queue=self._queue_new,
            used_names=self._names_in,
            stable_seconds=self.stable_seconds,
            models=lambda: cached_models(self.home / "cache", self.service_label),
        )
        self.watchers[project["root"]] = watcher
        await watcher.start(self.store.jobs())

    async def unwatch(self, root: str) -> None:
        """Stop watching a project's inbox (it was forgotten)."""
        watcher = self.watchers.pop(root, None)
        if watcher is not None:
            await watcher.stop()

    def _submit_drop(self, request: JobRequest, name: str, target: Path, priority: str) -> Job:
        """Record a watched drop's job; thread-safe (the watcher queues it afterwards). Its
        generation paid for already: a free re-cut of the kept clip."""
        request, _ = settle(self.store, self.engine.clips, request)
        return self.engine.submit(
            request, name=name, target_dir=target, priority=0 if priority == "editor" else 1
        )

    def _queue_new(self, job: Job) -> None:
        self.enqueue(job)
        self._changed(job)

    def _jobs_with_hash(self, digest: str) -> list[Job]:
        return self.store.jobs_with("drop_hash", digest)

    def _names_in(self, target_dir: str) -> set[str]:
        return names_in(self.store, target_dir)

    def enqueue(self, job: Job) -> None:
        if job.id in self._queued:
            return
        self._queued.add(job.id)
        self._queue.put_nowait((job.priority, next(self._order), job.id))

    async def start(self) -> None:
        """Resume every unfinished job (they survive restarts), then serve new ones."""
        self._loop = asyncio.get_running_loop()
        for job in self.store.jobs():
            if job.state not in FINAL and job.state != State.AWAITING_APPROVAL:
                self.enqueue(job)
        # Credits the service posted after a job's end, entered (remote_books).
        self._following = asyncio.create_task(self._follow_books())
        self._workers = [asyncio.create_task(self._work()) for _ in range(self._worker_count)]
        for project in self.store.projects():
            await self.watch(project)

    async def _follow_books(self) -> None:
        try:
            await self.engine.follow_books()
        except CompanionApiError as exc:
            log.info("credits posted late are entered at the next start: %s", exc)

    def set_workers(self, count: int) -> None:
        """As many workers as the account has slots (known once the service answers)."""
        self._worker_count = max(1, count)
        if self._loop is None:
            return
        while len(self._workers) < self._worker_count:
            self._workers.append(asyncio.create_task(self._work()))

    async def stop(self) -> None:
        if self.reach is not None:
            await self.reach.stop()
        self.broker.close()  # event streams end, so shutdown need not wait for them
        for watcher in self.watchers.values():
            await watcher.stop()
        ended = [*self._workers, *([self._following] if self._following else [])]
        for worker in ended:
            worker.cancel()
        await asyncio.gather(*ended, return_exceptions=True)

    async def _work(self) -> None:
        while True:
            _, _, job_id = await self._queue.get()
            if self.reach is not None:
                await self.reach.online.wait()  # queued while the service is away
            job = await asyncio.to_thread(self.store.job, job_id)
            if await asyncio.to_thread(waits_for_generation, self.store, job):
                # Its generation is under way: queued again shortly, so a worker is never
                # held by a re-cut while the generation it waits for has none.
                self._queued.discard(job_id)
                asyncio.get_running_loop().call_later(RECUT_RETRY, self.enqueue, job)
                continue
            try:
                job = await self.engine.run(job_id)
                self._changed(job)
            except CompanionApiError as exc:
                if self.reach is not None and unreachable(exc):
                    # Away: the job waits in the queue until the probe finds the service.
                    self.reach.lost(exc)
                    self._queued.discard(job_id)
                    self.enqueue(self.store.job(job_id))
                    continue
                # The service is unreachable or refusing for now: the job stays where it
                # is and is tried again shortly.
                log.warning("job %s paused: %s", job_id, exc)
                await asyncio.sleep(5)
                self._queued.discard(job_id)
                self.enqueue(self.store.job(job_id))
                continue
            except Exception:
                log.exception("job %s stopped unexpectedly", job_id)
            self._queued.discard(job_id)

    def _job_out(self, job: Job) -> JobOut:
        return JobOut.of(job_view(self.store, job))

    # -- the application -----------------------------------------------------------------

    def app(self, allowed_origins: frozenset[str] = frozenset()) -> web.Application:
        app = web.Application(
            client_max_size=MAX_BODY,
            middlewares=[
                errors(lambda: self.reach),
                guard(self.token, lambda: self.port, allowed_origins, self.link_codes.session),
            ],
        )
        routes = [
            *self.status_routes.routes(),
            *self.project_routes.routes(),
            *self.animate_routes.routes(),
            *self.character_routes.routes(),
            *self.job_routes.routes(),
            *self.generation_routes.routes(),
            *self.batch_routes.routes(),
            ("POST", "/api/v1/status-link", status_link),
            ("GET", "/", page),
        ]
        for method, path, handler in routes:
            app.router.add_route(method, path, handler)
        from companion.daemon.mcp.on_daemon import serve_tools  # the SDK loads with the daemon only

        serve_tools(app, lambda: self.port, self.token, self.home)
        app[TOKEN] = self.token
        app[CODES] = self.link_codes
        return app

    # -- what the route groups use of the daemon -----------------------------------------

    async def digest(self, body: AnimateIn) -> str:
        return await self.animate_routes.digest(body)

    async def quote_reply(self, body: AnimateIn, new_seed: bool = False) -> dict[str, Any]:
        return await self.animate_routes.quote_reply(body, new_seed)

    async def submit_animate(
        self, body: AnimateIn, lineage: dict[str, str] | None = None
    ) -> web.Response:
        return await self.animate_routes.submit_animate(body, lineage)

    async def prepare_animate(
        self, body: AnimateIn, lineage: dict[str, str] | None = None
    ) -> Prepared | Earlier:
        return await self.animate_routes.prepare_animate(body, lineage)

    def start_animate(self, ready: Prepared, approved: bool = False) -> Job:
        return self.animate_routes.start_animate(ready, approved)

    def changed(self, job: Job) -> None:
        self._changed(job)

    def job_out(self, job: Job) -> JobOut:
        return self._job_out(job)

    def engine_refusal(self, engine: str, root: Path, target: Path) -> str | None:
        return registry.engine_refusal(engine, root, target)


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
