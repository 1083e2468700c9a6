"""config.yaml's projects, taken by a running daemon without a restart.

The projects listed in config.yaml join the registry when the daemon starts; this
looks at the file's size and modification time every second and, when they change,
reads it again and registers what it lists (a project added starts being watched, a
changed inbox or target takes effect). A file that no longer parses is logged and the
projects already registered stay as they were. Other settings (key, address, budgets)
are read at start-up only."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from companion.daemon.roots import expand, folders_refusal, root_refusal
from companion.settings.config import ConfigError, load_settings
from companion.store import Store

log = logging.getLogger("companion.daemon")
INTERVAL = 1.0


def register_listed(store: Store, projects: list[dict[str, Any]]) -> None:
    """Register config.yaml's projects; a refused one is logged and the others taken."""
    for project in projects:
        given = expand(str(project["root"]))
        kind = project.get("engine")
        refusal = root_refusal(given, str(kind or "other")) or folders_refusal(given, project)
        if refusal:
            log.error("config.yaml project skipped: %s", refusal)
            continue
        store.add_project(
            str(given.resolve()),
            str(kind) if kind else None,
            {k: v for k, v in project.items() if k not in ("root", "engine")},
        )


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


class ConfigWatch:
    def __init__(
        self,
        home: Path,
        store: Store,
        changed: Callable[[dict[str, Any]], Awaitable[None]],
        interval: float = INTERVAL,
    ) -> None:
        self.home = home
        self.path = home / "config.yaml"
        self.store = store
        self._changed = changed
        self._interval = interval
        self._stamp = _stamp(self.path)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self._interval)
            stamp = _stamp(self.path)
            if stamp == self._stamp:
                continue
            self._stamp = stamp
            try:
                await self.reload()
            except Exception:  # one bad reading never ends the watch
                log.exception("config.yaml: reading it again failed")

    async def reload(self) -> None:
        environ = {**os.environ, "COMPANION_HOME": str(self.home)}
        try:
            settings = await asyncio.to_thread(load_settings, environ)
        except ConfigError as exc:
            log.error("config.yaml changed but cannot be used, projects kept as they were: %s", exc)
            return
        before = {p["root"]: p for p in self.store.projects()}
        await asyncio.to_thread(register_listed, self.store, settings.projects)
        for project in self.store.projects():
            if before.get(project["root"]) != project:
                log.info("config.yaml: project %s registered", project["root"])
                await self._changed(project)
