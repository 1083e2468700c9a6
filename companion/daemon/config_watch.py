"""config.yaml's projects, taken by a running daemon without a restart.

The projects listed in config.yaml join the registry when the daemon starts; this
looks at the file's size and modification time when a filesystem event names it (in its
folder, or in the folder a linked config.yaml points into; every second instead where
events cannot be had) and, when they changed, reads it again and registers what it lists
(a project added starts being watched, a changed inbox or target takes effect). A file
that no longer parses is logged and the projects already registered stay as they were.
Other settings (key, address, budgets) are read at start-up only."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from companion.daemon.registry import register_listed
from companion.settings.config import load_settings
from companion.settings.errors import ConfigError
from companion.store import Store

log = logging.getLogger("companion.daemon")
INTERVAL = 1.0  # the look's period where no filesystem events can be had
GATHER = 0.1  # an editor's save is often several writes: read once they are made


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


class _Named(FileSystemEventHandler):
    """Calls `touched` for any change to a file of one of these names."""

    def __init__(self, names: set[str], touched: Callable[[], None]) -> None:
        self.names = names
        self.touched = touched

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if raw and Path(str(raw)).name in self.names:
                self.touched()
                return


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
        self._touched = asyncio.Event()
        self._observer: Any = None

    def start(self) -> None:
        loop = asyncio.get_running_loop()

        def touched() -> None:  # on the observer's thread
            loop.call_soon_threadsafe(self._touched.set)

        self._observer = self._observe(touched)
        self._task = asyncio.create_task(self._run())

    def _observe(self, touched: Callable[[], None]) -> Any:
        """An observer of the folders config.yaml lives in, or None where none can start
        (no inotify watches left, say): then the file is looked at every interval."""
        folders = {self.path.parent}
        target = self.path.resolve()  # a linked config.yaml changes where it points
        folders.add(target.parent)
        handler = _Named({self.path.name, target.name}, touched)
        observer = Observer()
        try:
            for folder in folders:
                observer.schedule(handler, str(folder), recursive=False)
            observer.start()
        except OSError as exc:
            log.warning("config.yaml is looked at every %g s: %s", self._interval, exc)
            return None
        return observer

    async def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            await asyncio.get_running_loop().run_in_executor(None, self._observer.join, 5)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        while True:
            if self._observer is None:
                await asyncio.sleep(self._interval)
            else:
                await self._touched.wait()
                await asyncio.sleep(GATHER)
                self._touched.clear()
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
