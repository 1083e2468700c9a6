"""The daemon's routes, and the worker pool that runs jobs through the engine."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import itertools
import logging
import re
import time
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web
from pydantic import BaseModel, ValidationError

from companion import __version__
from companion.api.errors import ApiStatusError, CompanionApiError
from companion.api.schema.base import first_error
from companion.api.schema.images import sniff_image_type
from companion.api.transport import RetryPolicy
from companion.daemon import bodies, generations, quote_context, registry
from companion.daemon.events import CLOSED, Broker
from companion.daemon.generation_routes import GenerationRoutes
from companion.daemon.gif_preview import has_preview_source, preview_gif
from companion.daemon.limits import request_limits
from companion.daemon.openapi import daemon_openapi
from companion.daemon.page import CODES, TOKEN, LinkCodes, page, status_link
from companion.daemon.quotes import quote_id
from companion.daemon.reach import Reach, unreachable
from companion.daemon.registry import expand
from companion.daemon.schema import (
    AnimateIn,
    BooksOut,
    JobList,
    JobOut,
    OutputOut,
    ProjectIn,
    ProjectOut,
    ProjectRef,
    QuoteOut,
    StatusOut,
)
from companion.daemon.security import MAX_BODY, error, guard
from companion.daemon.watch import ProjectWatcher
from companion.install import foresee
from companion.install.plan import Placement, default_target
from companion.jobs.engine import Engine
from companion.jobs.lifecycle import FINAL, State
from companion.jobs.request import JobRequest
from companion.media.export import safe_name
from companion.store import Job
from companion.store.account import TeamUnavailable
from companion.store.books import disagreement, store_books

log = logging.getLogger("companion.daemon")
Model = TypeVar("Model", bound=BaseModel)
STATUS_CACHE_SECONDS = 10.0
STATUS_POLICY = RetryPolicy(max_attempts=2, deadline=8.0)  # the page waits on it
HEARTBEAT_SECONDS = 15.0


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
        self._worker_count = workers
        self._status: tuple[float, dict[str, Any]] | None = None
        self._plugins_told: set[str] = set()
        self.watchers: dict[str, ProjectWatcher] = {}
        # Whether the service answers; set by the server before start (None: assume so).
        self.reach: Reach | None = None
        self.link_codes = LinkCodes()
        self._clips = generations.ClipInfo(engine.clips)
        self.stable_seconds = 0.5
        self._loop: asyncio.AbstractEventLoop | None = None
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
        watcher = ProjectWatcher(
            project,
            self._submit_drop,
            self._jobs_with_hash,
            queue=self._queue_new,
            used_names=self._names_in,
            stable_seconds=self.stable_seconds,
        )
        self.watchers[project["root"]] = watcher
        await watcher.start(self.store.jobs())

    def _submit_drop(self, request: JobRequest, name: str, target: Path, priority: str) -> Job:
        """Record a watched drop's job; thread-safe (the watcher queues it afterwards)."""
        return self.engine.submit(
            request, name=name, target_dir=target, priority=0 if priority == "editor" else 1
        )

    def _queue_new(self, job: Job) -> None:
        self.enqueue(job)
        self._changed(job)

    def _jobs_with_hash(self, digest: str) -> list[Job]:
        return self.store.jobs_with("drop_hash", digest)

    def _names_in(self, target_dir: str) -> set[str]:
        """Names that jobs wrote, or will write, into target_dir (a job that ended before
        it reached the service wrote nothing)."""
        return {
            j.name
            for j in self.store.jobs()
            if j.target_dir == target_dir
            and (j.remote_id or j.state not in (State.FAILED, State.CANCELLED))
        }

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
        self._workers = [asyncio.create_task(self._work()) for _ in range(self._worker_count)]
        for project in self.store.projects():
            await self.watch(project)

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
        for worker in self._workers:
            worker.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)

    async def _work(self) -> None:
        while True:
            _, _, job_id = await self._queue.get()
            if self.reach is not None:
                await self.reach.online.wait()  # queued while the service is away
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
        outputs = [
            OutputOut(format=a.format, file=a.file_name, installed_path=a.installed_path)
            for a in self.store.assets(job.id)
        ]
        return JobOut(
            id=job.id,
            state=job.state,
            name=job.name,
            progress=job.progress,
            quote=job.quote,
            remote_id=job.remote_id,
            target_dir=job.target_dir,
            error=job.error or "",
            resource=job.resource,
            created_at=job.created_at,
            updated_at=job.updated_at,
            outputs=outputs,
            preview=job.state == State.DONE
            and has_preview_source({o.format for o in outputs if o.installed_path}),
        )

    # -- the application -----------------------------------------------------------------

    def app(self, allowed_origins: frozenset[str] = frozenset()) -> web.Application:
        app = web.Application(
            client_max_size=MAX_BODY,
            middlewares=[
                self._errors,
                guard(self.token, lambda: self.port, allowed_origins, self.link_codes.session),
            ],
        )
        routes = [
            ("GET", "/api/v1/health", self.health),
            ("GET", "/api/v1/status", self.status),
            ("GET", "/api/v1/team", self.team),
            ("GET", "/api/v1/models", self.models),
            ("GET", "/api/v1/openapi.json", self.openapi),
            ("GET", "/api/v1/projects", self.list_projects),
            ("POST", "/api/v1/projects", self.add_project),
            ("POST", "/api/v1/projects/remove", self.remove_project),
            ("POST", "/api/v1/quote", self.quote),
            ("POST", "/api/v1/animate", self.animate),
            ("GET", "/api/v1/jobs", self.list_jobs),
            ("GET", "/api/v1/jobs/{job_id}", self.get_job),
            ("POST", "/api/v1/jobs/{job_id}/cancel", self.cancel_job),
            ("POST", "/api/v1/jobs/{job_id}/approve", self.approve_job),
            ("GET", "/api/v1/events", self.events),
            ("GET", "/api/v1/jobs/{job_id}/preview.gif", self.preview),
            ("GET", "/api/v1/generations", self.generations),
            *GenerationRoutes(self).routes(),
            ("POST", "/api/v1/status-link", status_link),
            ("GET", "/", page),
        ]
        for method, path, handler in routes:
            app.router.add_route(method, path, handler)
        app[TOKEN] = self.token
        app[CODES] = self.link_codes
        return app

    @web.middleware
    async def _errors(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            response: web.StreamResponse = await handler(request)
            return response
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 413: "TOO_LARGE"}.get(
                exc.status, "BAD_REQUEST"
            )
            return error(exc.status, code, exc.reason)
        except ApiStatusError as exc:
            if exc.status < 500:  # the service refused what was asked: a bad request
                return error(400, "SERVICE_REFUSED", f"the service refused it: {exc}")
            return error(502, "SERVICE_ERROR", f"the service failed: {exc}")
        except CompanionApiError as exc:
            if self.reach is not None and unreachable(exc):
                self.reach.lost(exc)  # queued work waits; the probe looks for it
            return error(502, "SERVICE_UNREACHABLE", f"the service did not answer: {exc}")
        except TeamUnavailable as exc:  # team mode: nothing is sent without the team's room
            return error(503, "TEAM_UNAVAILABLE", f"{exc}; try again shortly")
        except Exception:  # never aiohttp's page or a traceback: log it, answer JSON
            log.exception("%s %s failed", request.method, request.path)
            return error(500, "INTERNAL", "the daemon failed on this request; see its log")

    async def _body(self, request: web.Request, model: type[Model], limit: int = MAX_BODY) -> Model:
        if request.content_type != "application/json":
            raise _Bad(415, "UNSUPPORTED_MEDIA_TYPE", "send application/json")
        try:  # size, depth and count limits: every bad body is a JSON 400
            data = await bodies.decode_async(await request.read(), limit)
        except bodies.BodyError as exc:
            raise _Bad(413 if exc.code == "TOO_LARGE" else 400, exc.code, str(exc)) from exc
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            param, message = first_error(exc)
            raise _Bad(400, "INVALID", f"{param}: {message}" if param else message) from exc

    # -- handlers ------------------------------------------------------------------------

    async def health(self, request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "version": __version__})

    async def team(self, request: web.Request) -> web.Response:
        """Team mode's shared state (members, slots, windows, spend, drift), or
        {"team": false} for a companion alone."""
        return web.json_response(await self.engine.account.status())

    def _plugin_said(self, said: str) -> None:
        """A plugin names itself and its version in X-Companion-Plugin ("godot 0.1.0"): a
        version other than the daemon's is logged once, with the command that fixes it."""
        engine, _, version = said.partition(" ")
        if engine not in ("godot", "unity") or not re.fullmatch(r"[0-9A-Za-z.+-]{1,32}", version):
            return
        if version == __version__ or said in self._plugins_told:
            return
        self._plugins_told.add(said)
        log.warning(
            "the %s plugin %s talks to companion %s; update it in its project with: "
            "companion plugin install %s PROJECT",
            engine,
            version,
            __version__,
            engine,
        )

    async def status(self, request: web.Request) -> web.Response:
        self._plugin_said(request.headers.get("X-Companion-Plugin", ""))
        cached = self._status
        reach = self.reach
        if cached is None or time.monotonic() - cached[0] > STATUS_CACHE_SECONDS:
            self._status = (time.monotonic(), await self._service_info())
            cached = self._status
        counts: dict[str, int] = {}
        for job in self.store.jobs():
            counts[job.state] = counts.get(job.state, 0) + 1
        out = StatusOut(
            version=__version__,
            mode="sandbox" if self.sandbox else "live",
            service=self.service_label,
            jobs=counts,
            limits=request_limits(),
            reachable=reach is None or reach.reachable,
            service_error=None if reach is None else reach.error,
            next_try=None if reach is None or reach.reachable else reach.next_try,
            **cached[1],
        )
        return web.json_response(out.model_dump(mode="json"))

    async def _service_info(self) -> dict[str, Any]:
        """Tier and balance, asked briefly; nothing while the service is known away."""
        if self.reach is not None and not self.reach.reachable:
            return {}
        try:
            account = await self.engine.client.get_account(STATUS_POLICY)
            balance = await self.engine.client.get_credit_balance(STATUS_POLICY)
        except CompanionApiError as exc:
            log.warning("status: the service did not answer (%s)", exc)
            if self.reach is not None and unreachable(exc):
                self.reach.lost(exc)
            return {}
        ledger = await asyncio.to_thread(store_books, self.store, balance.available)
        books = BooksOut(
            disagreement=disagreement(ledger.get("drift"), ledger.get("drift_since")),
            **{k: v for k, v in ledger.items() if k in BooksOut.model_fields},
        )
        return {"tier": str(account.plan.code), "balance": balance.available, "books": books}

    def _away(self) -> web.Response | None:
        """A prompt answer, instead of a long wait, while the service is known away."""
        reach = self.reach
        if reach is None or reach.reachable:
            return None
        return error(
            503,
            "SERVICE_UNREACHABLE",
            f"the service does not answer ({reach.error}); animate requests are queued "
            "meanwhile and go on when it answers",
        )

    async def models(self, request: web.Request) -> web.Response:
        away = self._away()
        if away is not None:
            return away
        return web.json_response((await self.engine.client.list_models()).model_dump(mode="json"))

    async def openapi(self, request: web.Request) -> web.Response:
        return web.json_response(daemon_openapi())

    async def list_projects(self, request: web.Request) -> web.Response:
        return web.json_response({"data": self.store.projects()})

    async def add_project(self, request: web.Request) -> web.Response:
        try:
            project = await self._body(request, ProjectIn, bodies.SMALL_BODY)
        except _Bad as bad:
            return bad.response()
        root = expand(project.root)
        existing = registry.find(self.store, str(root)) if root.is_absolute() else None
        given = {k: getattr(project, k) for k in project.model_fields_set if k != "root"}
        try:
            registered = registry.register(self.store, root, given)
        except registry.Refused as exc:
            return error(400, "INVALID", str(exc))
        if registered != existing:
            await self.watch(registered)
        out = ProjectOut(
            root=str(registered["root"]),
            engine=str(registered["engine"]),
            target=str(registered.get("target")),
            inbox=registered.get("inbox"),
        )
        return web.json_response(out.model_dump(), status=201)

    async def remove_project(self, request: web.Request) -> web.Response:
        """Forget a project: its watcher stops; its files and jobs stay."""
        try:
            given = (await self._body(request, ProjectRef, bodies.SMALL_BODY)).root
        except _Bad as bad:
            return bad.response()
        project = registry.forget(self.store, given)
        if project is None:
            return error(404, "NOT_FOUND", f"root: {given} is not registered")
        watcher = self.watchers.pop(project["root"], None)
        if watcher is not None:
            await watcher.stop()
        out = ProjectOut(
            root=str(project["root"]),
            engine=str(project["engine"]),
            target=str(project.get("target") or default_target(str(project["engine"]))),
            inbox=project.get("inbox"),
        )
        return web.json_response(out.model_dump())

    def _project(self, root: str) -> dict[str, Any] | None:
        return registry.find(self.store, root)

    async def _priced(self, body: AnimateIn) -> tuple[JobRequest, str, Path, str]:
        """The job request, and the quote id of exactly this body."""
        job_request, name, target = await self._request(body)
        digest = await asyncio.to_thread(quote_id, body, Path(job_request.image))
        return job_request, name, target, digest

    async def _request(self, body: AnimateIn) -> tuple[JobRequest, str, Path]:
        project = self._project(body.project_root)
        if project is None:
            raise _Bad(
                403, "PROJECT_NOT_REGISTERED", "register the project first: POST /api/v1/projects"
            )
        root = Path(project["root"])
        if body.image_path is not None:
            image = registry.inside(root, body.image_path)
            if image is None or not image.is_file():
                raise _Bad(400, "INVALID", "image_path: must be a file inside the project")
        else:
            # Base64 decoding, hashing and writing up to 16 MiB: off the event loop
            image = await asyncio.to_thread(self._store_inline, body.image_base64 or "")
        engine = str(project.get("engine", "other"))
        target = registry.inside(
            root, body.target_folder or project.get("target") or default_target(engine)
        )
        if target is None:
            raise _Bad(400, "INVALID", "target_folder: must stay inside the project")
        refusal = registry.engine_refusal(engine, root, target)
        if refusal:
            raise _Bad(400, "INVALID", f"target_folder: {refusal}")
        name = body.name or safe_name(image.stem)
        try:
            last_frame, references = quote_context.extra_images(root, body)
        except quote_context.BadInput as exc:
            raise _Bad(400, "INVALID", str(exc)) from exc
        request = JobRequest.animation(
            image=image,
            prompt=body.prompt,
            video=body.video,
            export=body.export,
            selection=body.selection,
            last_frame=last_frame,
            references=references,
            negative_prompt=body.negative_prompt,
            placement=Placement(engine, root, target),
        )
        return request, name, target

    def _store_inline(self, text: str) -> Path:
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise _Bad(400, "INVALID", "image_base64: not valid Base64") from exc
        if sniff_image_type(data) is None:
            raise _Bad(415, "UNSUPPORTED_MEDIA_TYPE", "image_base64: not PNG, JPEG or WebP")
        folder = self.home / "inbox"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{hashlib.sha256(data).hexdigest()[:32]}.img"
        path.write_bytes(data)
        return path

    async def quote(self, request: web.Request) -> web.Response:
        try:
            body = await self._body(request, AnimateIn)
        except _Bad as bad:
            return bad.response()
        reply = await self.quote_reply(body)
        return reply if isinstance(reply, web.Response) else web.json_response(reply)

    async def animate(self, request: web.Request) -> web.Response:
        try:
            body = await self._body(request, AnimateIn)
        except _Bad as bad:
            return bad.response()
        return await self.submit_animate(body)

    # What the generation routes use of the daemon.

    async def parse(
        self, request: web.Request, model: type[Model], limit: int = MAX_BODY
    ) -> Model | web.Response:
        try:
            return await self._body(request, model, limit)
        except _Bad as bad:
            return bad.response()

    async def digest(self, body: AnimateIn) -> str | web.Response:
        try:
            return (await self._priced(body))[3]
        except _Bad as bad:
            return bad.response()

    async def quote_reply(self, body: AnimateIn) -> dict[str, Any] | web.Response:
        """What POST /quote answers for body."""
        try:
            job_request, name, target, digest = await self._priced(body)
        except _Bad as bad:
            return bad.response()
        away = self._away()
        if away is not None:
            return away
        writes, clashes = await asyncio.to_thread(self._foresee, job_request, name, target)
        credits = await self.engine.quote(job_request, name)
        return QuoteOut(
            credits=credits,
            quote_id=digest,
            name=name,
            target_dir=str(target),
            writes=[str(p) for p in writes],
            conflicts=clashes,
            **await quote_context.context(self.engine, credits),
        ).model_dump()

    def _foresee(
        self, job_request: JobRequest, name: str, target: Path
    ) -> tuple[list[Path], list[dict[str, str]]]:
        """The files the install will write, and those it may not replace."""
        engine = job_request.install.engine if job_request.install else "other"
        writes = foresee.planned(engine, target, name, job_request.install_formats or [])
        return writes, foresee.conflicts(self.store, name, writes)

    def changed(self, job: Job) -> None:
        self._changed(job)

    def job_out(self, job: Job) -> JobOut:
        return self._job_out(job)

    def inside(self, root: Path, relative: str) -> Path | None:
        return registry.inside(root, relative)

    def engine_refusal(self, engine: str, root: Path, target: Path) -> str | None:
        return registry.engine_refusal(engine, root, target)

    async def submit_animate(
        self, body: AnimateIn, lineage: dict[str, str] | None = None
    ) -> web.Response:
        """A paid job for body; refused (409 STALE_QUOTE, nothing spent) when its quote
        id priced something else."""
        try:
            job_request, name, target, digest = await self._priced(body)
        except _Bad as bad:
            return bad.response()
        job_request = job_request.descended(lineage or {})
        if body.quote_id is not None and body.quote_id != digest:
            return error(
                409,
                "STALE_QUOTE",
                "quote_id: the settings or the image changed since that quote; quote again "
                "(nothing was spent)",
            )
        _, clashes = await asyncio.to_thread(self._foresee, job_request, name, target)
        if clashes and body.replace:  # said explicitly: each is moved aside, never lost
            replace = await asyncio.to_thread(quote_context.agreed, clashes)
            job_request = job_request.model_copy(update={"replace": replace})
        elif clashes:
            more = f" (and {len(clashes) - 1} more)" if len(clashes) > 1 else ""
            return error(
                409,
                "CONFLICT",
                f"{clashes[0]['reason']}{more}: the install would have to replace it, and "
                "it is never replaced unasked. Nothing was spent: give another name, move "
                'the file away, or send "replace": true to have it moved aside',
            )
        job = self.engine.submit(job_request, name=name, target_dir=target, priority=0)
        self.enqueue(job)
        self._changed(job)
        return web.json_response(self._job_out(job).model_dump(mode="json"), status=202)

    async def list_jobs(self, request: web.Request) -> web.Response:
        jobs = [self._job_out(j) for j in reversed(self.store.jobs())][:200]
        return web.json_response(JobList(data=jobs).model_dump(mode="json"))

    def _job(self, request: web.Request) -> Job:
        try:
            return self.store.job(request.match_info["job_id"])
        except KeyError as exc:
            raise web.HTTPNotFound(reason="no such job") from exc

    async def get_job(self, request: web.Request) -> web.Response:
        return web.json_response(self._job_out(self._job(request)).model_dump(mode="json"))

    async def cancel_job(self, request: web.Request) -> web.Response:
        job = await self.engine.cancel(self._job(request).id)
        self._changed(job)
        return web.json_response(self._job_out(job).model_dump(mode="json"))

    async def approve_job(self, request: web.Request) -> web.Response:
        job = self._job(request)
        if job.state != State.AWAITING_APPROVAL:
            return error(409, "NOT_AWAITING_APPROVAL", f"the job is {job.state}")
        job = self.engine.approve(job.id)
        self.enqueue(job)
        return web.json_response(self._job_out(job).model_dump(mode="json"))

    async def generations(self, request: web.Request) -> web.Response:
        """A project's jobs, newest first, as the Generations panel lists them."""
        given = request.query.get("project", "")
        project = (
            self._project(given)
            if given and "\x00" not in given and expand(given).is_absolute()
            else None
        )
        if project is None:
            return error(400, "INVALID", "project: give a registered project's root folder")
        try:
            limit = int(request.query.get("limit", "50"))
        except ValueError:
            limit = 0
        if not 1 <= limit <= 500:
            return error(400, "INVALID", "limit: a whole number from 1 to 500")
        listed = await asyncio.to_thread(
            generations.page,
            self.store,
            str(project["root"]),
            self._clips,
            limit=limit,
            before=request.query.get("before"),
        )
        return web.json_response(listed.model_dump(mode="json"))

    async def preview(self, request: web.Request) -> web.StreamResponse:
        job = self._job(request)
        loop = asyncio.get_running_loop()
        path = await loop.run_in_executor(
            None, preview_gif, self.store, job.id, self.home / "previews"
        )
        if path is None or not path.exists():
            return error(404, "NO_PREVIEW", "the job has no finished frames to preview")
        return web.FileResponse(path, headers={"Content-Type": "image/gif"})

    async def events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
        )
        await response.prepare(request)
        queue = self.broker.subscribe()
        try:
            await response.write(b": connected\n\n")
            while True:
                try:
                    message = await asyncio.wait_for(queue.get(), HEARTBEAT_SECONDS)
                except TimeoutError:
                    message = ": heartbeat\n\n"
                if message == CLOSED or self.broker.closed:
                    break
                await response.write(message.encode())
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self.broker.unsubscribe(queue)
        return response


class _Bad(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message

    def response(self) -> web.Response:
        return error(self.status, self.code, self.message)


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
