"""The project routes: list the registered projects, register one (its inbox watched at
once), forget one (its watcher stops; its files and jobs stay), and list a project's
generated files with their provenance (as `companion provenance` does)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from companion.daemon import registry
from companion.daemon.errors import Bad, Refused
from companion.daemon.http.middleware import read_body
from companion.daemon.registry import expand
from companion.daemon.schema import bodies
from companion.daemon.schema.requests import ProjectIn, ProjectOut, ProjectRef
from companion.install import default_target
from companion.jobs import project_files, service_name

if TYPE_CHECKING:
    from companion.daemon.http.host import Host


class ProjectRoutes:
    def __init__(self, daemon: Host) -> None:
        self.daemon = daemon

    def routes(self) -> list[tuple[str, str, Any]]:
        return [
            ("GET", "/api/v1/projects", self.list_projects),
            ("POST", "/api/v1/projects", self.add_project),
            ("POST", "/api/v1/projects/remove", self.remove_project),
            ("GET", "/api/v1/provenance", self.provenance),
        ]

    async def list_projects(self, request: web.Request) -> web.Response:
        return web.json_response({"data": self.daemon.store.projects()})

    async def add_project(self, request: web.Request) -> web.Response:
        project = await read_body(request, ProjectIn, bodies.SMALL_BODY)
        store = self.daemon.store
        root = expand(project.root)
        existing = registry.find(store, str(root)) if root.is_absolute() else None
        given = {k: getattr(project, k) for k in project.model_fields_set if k != "root"}
        try:
            registered = registry.register(store, root, given)
        except Refused as exc:
            raise Bad(400, "INVALID", str(exc)) from exc
        if registered != existing:
            await self.daemon.watch(registered)
        out = ProjectOut(
            root=str(registered["root"]),
            engine=str(registered["engine"]),
            target=str(registered.get("target")),
            inbox=registered.get("inbox"),
        )
        return web.json_response(out.model_dump(), status=201)

    async def remove_project(self, request: web.Request) -> web.Response:
        """Forget a project: its watcher stops; its files and jobs stay."""
        ref = await read_body(request, ProjectRef, bodies.SMALL_BODY)
        project = registry.forget(self.daemon.store, ref.root)
        if project is None:
            raise Bad(404, "NOT_FOUND", f"root: {ref.root} is not registered")
        await self.daemon.unwatch(str(project["root"]))
        out = ProjectOut(
            root=str(project["root"]),
            engine=str(project["engine"]),
            target=str(project.get("target") or default_target(str(project["engine"]))),
            inbox=project.get("inbox"),
        )
        return web.json_response(out.model_dump())

    async def provenance(self, request: web.Request) -> web.Response:
        """Every generated file of a registered project (?project=ROOT) still as it was
        installed, with its record."""
        root = request.query.get("project", "")
        project = registry.find(self.daemon.store, root) if root else None
        if project is None:
            raise Bad(
                404,
                "NOT_FOUND",
                f"project: {root or 'none given'} is not a registered project; give a "
                "registered root as ?project=ROOT (see GET /api/v1/projects)",
            )
        service = "" if self.daemon.sandbox else service_name(self.daemon.service_label)
        listed = await asyncio.to_thread(
            project_files, self.daemon.store, Path(project["root"]), service
        )
        return web.json_response(
            {"project": project["root"], "data": [item.row() for item in listed]}
        )
