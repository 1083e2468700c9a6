"""The job routes: list, look at, cancel and approve jobs, a project's generations page,
a finished job's preview GIF, and the event stream (SSE) of job changes."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from aiohttp import web

from companion.daemon import generations, registry
from companion.daemon.errors import Bad
from companion.daemon.http.events import CLOSED
from companion.daemon.registry import expand
from companion.daemon.routes.gif_preview import preview_gif
from companion.daemon.schema.requests import JobList
from companion.jobs import JobFailed, State
from companion.store import Job

if TYPE_CHECKING:
    from companion.daemon.http.host import Host

HEARTBEAT_SECONDS = 15.0


class JobRoutes:
    def __init__(self, daemon: Host) -> None:
        self.daemon = daemon
        self._clips = generations.ClipInfo(daemon.engine.clips)

    def routes(self) -> list[tuple[str, str, Any]]:
        return [
            ("GET", "/api/v1/jobs", self.list_jobs),
            ("GET", "/api/v1/jobs/{job_id}", self.get_job),
            ("POST", "/api/v1/jobs/{job_id}/cancel", self.cancel_job),
            ("POST", "/api/v1/jobs/{job_id}/approve", self.approve_job),
            ("POST", "/api/v1/jobs/{job_id}/retry", self.retry_job),
            ("GET", "/api/v1/events", self.events),
            ("GET", "/api/v1/jobs/{job_id}/preview.gif", self.preview),
            ("GET", "/api/v1/generations", self.generations),
        ]

    def _job(self, request: web.Request) -> Job:
        try:
            return self.daemon.store.job(request.match_info["job_id"])
        except KeyError as exc:
            raise web.HTTPNotFound(reason="no such job") from exc

    def _answer(self, job: Job, status: int = 200) -> web.Response:
        return web.json_response(self.daemon.job_out(job).model_dump(mode="json"), status=status)

    async def list_jobs(self, request: web.Request) -> web.Response:
        daemon = self.daemon
        # Cut to the newest 200 before job_out: each one asks the store for its assets.
        jobs = [daemon.job_out(j) for j in daemon.store.jobs()[::-1][:200]]
        return web.json_response(JobList(data=jobs).model_dump(mode="json"))

    async def get_job(self, request: web.Request) -> web.Response:
        return self._answer(self._job(request))

    async def cancel_job(self, request: web.Request) -> web.Response:
        job = await self.daemon.engine.cancel(self._job(request).id)
        self.daemon.changed(job)
        return self._answer(job)

    async def approve_job(self, request: web.Request) -> web.Response:
        job = self._job(request)
        if job.state != State.AWAITING_APPROVAL:
            raise Bad(409, "NOT_AWAITING_APPROVAL", f"the job is {job.state}")
        job = self.daemon.engine.approve(job.id)
        self.daemon.enqueue(job)
        return self._answer(job)

    async def retry_job(self, request: web.Request) -> web.Response:
        """A job paid for whose outputs did not go in is installed again, free; one that
        never reached the service starts again (and is paid for as it is made)."""
        job = self._job(request)
        try:
            job = self.daemon.engine.retry(job.id)
        except JobFailed as exc:
            raise Bad(409, "NOT_RETRYABLE", str(exc)) from exc
        self.daemon.enqueue(job)
        self.daemon.changed(job)
        return self._answer(job, status=202)

    async def generations(self, request: web.Request) -> web.Response:
        """A project's jobs, newest first, as the Generations panel lists them."""
        store = self.daemon.store
        given = request.query.get("project", "")
        project = (
            registry.find(store, given)
            if given and "\x00" not in given and expand(given).is_absolute()
            else None
        )
        if project is None:
            raise Bad(400, "INVALID", "project: give a registered project's root folder")
        try:
            limit = int(request.query.get("limit", "50"))
        except ValueError:
            limit = 0
        if not 1 <= limit <= 500:
            raise Bad(400, "INVALID", "limit: a whole number from 1 to 500")
        listed = await asyncio.to_thread(
            generations.page,
            store,
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
            None, preview_gif, self.daemon.store, job.id, self.daemon.home / "previews"
        )
        if path is None or not path.exists():
            raise Bad(404, "NO_PREVIEW", "the job has no finished frames to preview")
        return web.FileResponse(path, headers={"Content-Type": "image/gif"})

    async def events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
        )
        await response.prepare(request)
        broker = self.daemon.broker
        queue = broker.subscribe()
        try:
            await response.write(b": connected\n\n")
            while True:
                try:
                    message = await asyncio.wait_for(queue.get(), HEARTBEAT_SECONDS)
                except TimeoutError:
                    message = ": heartbeat\n\n"
                if message == CLOSED or broker.closed:
                    break
                await response.write(message.encode())
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            broker.unsubscribe(queue)
        return response
