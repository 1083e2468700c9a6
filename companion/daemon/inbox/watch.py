"""Watched drop folders: an image (or a folder of frames) dropped into a project's inbox
becomes a job, and its results land in the project's target folder.

- Candidates come from watchdog (a polling observer for network drives) and from a scan
  at start-up for what arrived while the daemon was down.
- A file is taken only once its size and mtime have held still for `stable_seconds` and
  it decodes as an image. It is looked at only on a filesystem event about it or when
  a timer set for it says its quiet spell is over (settle.py): an idle watcher sleeps.
  One that does not decode yet is looked at again, each time after
  a longer quiet spell (longer still for a file seen growing: a slow writer on a network
  share), and only then declared failed. Temporary and hidden names are ignored, so a save
  that writes a temp file and renames it is seen once, under its final name.
- Only regular files are opened, never a link, a pipe or a device; images are refused by
  the size their header declares before they are decoded (see drops.py). All of that, and
  every file move, runs on worker threads: the event loop only decides. A bad drop lands
  in failed/ and the next one is taken; nothing in `.processing/` can stop start-up.
- A dropped folder is one job: `first.*` (or its only image) is the first frame, `last.*`
  the last frame, `ref*.*` reference images, `animation.yaml` the settings.
- Settings come from a sidecar (`hero.yaml` beside `hero.png`, or the folder's
  `animation.yaml`) validated like the API's requests, over the project's defaults. A
  sidecar is taken with its picture and ends beside it in done/ or failed/.
- A taken source is first renamed into `inbox/.processing/`; when its job ends it moves
  to `done/`, or to `failed/` beside a `.error.txt` that says what to do. Nothing is lost
  across restarts: what sits in `.processing/` without a job gets one.
- The same content with the same settings is never paid for twice: a hash of both finds
  the earlier jobs; a done one is reused, one under way is joined (cancelled or failed
  ones never hide either).
- Names never collide: a drop named like an earlier animation in the same target folder
  (another picture, or a sidecar naming the same `name`) gets its own name (hero_2),
  said in done/NAME.note.txt.
- Results go only inside the project: a target folder that leads outside it through a
  symbolic link is refused, as the API refuses it.
- A Godot project's inbox inside the project gets an empty `.gdignore` (a hidden name,
  so never a drop): Godot would otherwise import the drops, done/ and failed/.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.polling import PollingObserver

from companion.api.schema import ModelsResponse
from companion.daemon.errors import DropError, Incomplete
from companion.daemon.inbox.drops import earlier_job, footprint, probe
from companion.daemon.inbox.endings import Endings
from companion.daemon.inbox.names import has_picture, original
from companion.daemon.inbox.prepare import DropReader, Prepared
from companion.daemon.inbox.settle import Settling
from companion.install import default_target, free_name
from companion.jobs import JobRequest
from companion.store import Job

log = logging.getLogger("companion.daemon.inbox.watch")

TEMPORARY_SUFFIXES = (".tmp", ".part", ".crdownload", ".download", "~", ".swp")
SPECIAL = frozenset({"done", "failed", ".processing"})
STOP_SECONDS = 10.0  # how long stopping waits for the drop in hand
GDIGNORE = ".gdignore"  # Godot imports nothing from a folder that holds one


def _ignored(path: Path) -> bool:
    name = path.name
    return (
        name.startswith(".")
        or name.startswith("~")
        or name.endswith(TEMPORARY_SUFFIXES)
        or name in SPECIAL
        or name.endswith((".error.txt", ".yaml", ".yml"))
    )


# Reading a file (the watcher's own probe among others) changes nothing worth a look.
_UNCHANGING = frozenset({"opened", "closed_no_write"})


class _Events(FileSystemEventHandler):
    def __init__(self, notify: Callable[[Path], None], inbox: Path) -> None:
        self.notify = notify
        self.inbox = inbox

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in _UNCHANGING:
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            path = Path(str(raw))
            # Only what sits directly in the inbox is a drop (a folder counts as one).
            while path.parent != self.inbox and self.inbox in path.parents:
                path = path.parent
            if path.parent == self.inbox:
                self.notify(path)


class ProjectWatcher:
    def __init__(
        self,
        project: dict[str, Any],
        submit: Callable[[JobRequest, str, Path, str], Job],
        find_by_hash: Callable[[str], list[Job]],
        *,
        queue: Callable[[Job], None] = lambda job: None,
        used_names: Callable[[str], set[str]] = lambda target: set(),
        stable_seconds: float = 0.5,
        polling: bool = False,
        models: Callable[[], ModelsResponse | None] = lambda: None,
    ) -> None:
        self.root = Path(project["root"])
        self.inbox = self.root / project.get("inbox", "inbox")
        self.engine = str(project.get("engine") or "other")
        self.target = self.root / (project.get("target") or default_target(self.engine))
        self.defaults = project.get("defaults") or {}
        self.submit = submit  # records a job; called on a worker thread
        self.queue = queue  # hands a recorded job to the workers; on the event loop
        self.find_by_hash = find_by_hash
        self.used_names = used_names
        self.stable_seconds = stable_seconds
        self.polling = polling or bool(project.get("poll"))
        self.processing = self.inbox / ".processing"
        self._reader = DropReader(
            self.root, self.inbox, self.target, self.engine, self.defaults, models
        )
        self._out = Endings(self.inbox)
        self._settling = Settling(stable_seconds)
        self._adopted: list[Path] = []  # in .processing without a job: made into jobs first
        self._observer: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._sources: dict[str, list[Path]] = {}  # job id -> its sources in .processing
        self._notes: dict[Path, str] = {}  # source -> what done/NAME.note.txt will say
        self._endings: set[asyncio.Future[None]] = set()
        self._stopping = False

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self, known: list[Job]) -> None:
        self._loop = asyncio.get_running_loop()
        entries = await asyncio.to_thread(self._prepare_folders)
        self._adopt_processing(known, entries)
        for entry in sorted(self.inbox.iterdir()):  # what arrived while we were down
            self._notice(entry)
        self._observer = PollingObserver(timeout=0.5) if self.polling else Observer()
        self._observer.schedule(
            _Events(self._notice_threadsafe, self.inbox), str(self.inbox), recursive=True
        )
        self._observer.start()
        self._task = asyncio.create_task(self._settle())

    def _prepare_folders(self) -> list[Path]:
        for folder in (self.inbox, self.processing, self.inbox / "done", self.inbox / "failed"):
            folder.mkdir(parents=True, exist_ok=True)
        if self.engine == "godot" and self.root.resolve() in self.inbox.resolve().parents:
            # Godot would import the drops, done/ and failed/ (a bad drop there is an
            # import error each time the project opens); it skips a folder holding a
            # .gdignore. One the user made is left as it is.
            with contextlib.suppress(FileExistsError):
                (self.inbox / GDIGNORE).open("x").close()
        return sorted(self.processing.iterdir())

    async def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            await asyncio.get_running_loop().run_in_executor(None, self._observer.join, 5)
        if self._task is not None:
            # The drop in hand is finished first (a job half recorded could be recorded
            # twice by the next watcher); only a stuck one is cancelled.
            self._stopping = True
            self._settling.nudge()
            try:
                await asyncio.wait_for(asyncio.shield(self._task), STOP_SECONDS)
            except TimeoutError:
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)
        if self._endings:
            await asyncio.gather(*self._endings, return_exceptions=True)

    def _adopt_processing(self, known: list[Job], entries: list[Path]) -> None:
        by_source = {j.request.get("drop_source"): j for j in known if j.request.get("drop_source")}
        for entry in entries:
            if entry.name.endswith(".yaml"):  # a sidecar travels with its picture
                if not has_picture(entry):
                    self._end_soon(lambda path, _: self._out.orphan_sidecar(path), entry, None)
                continue
            job = by_source.get(str(entry))
            if job is None:  # taken, but the job was never recorded: record it now
                self._adopted.append(entry)
            else:
                self._sources.setdefault(job.id, []).append(entry)
                if note := job.request.get("drop_note"):
                    self._notes[entry] = str(note)
                if job.state in ("done", "failed", "cancelled"):
                    self.finished(job)

    # -- noticing and settling ----------------------------------------------------------------

    def _notice_threadsafe(self, path: Path) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._notice, path)

    def _notice(self, path: Path) -> None:
        if not _ignored(path):
            self._settling.notice(path)

    async def _settle(self) -> None:
        while not self._stopping:
            try:
                while self._adopted and not self._stopping:
                    await self._start_job(self._adopted.pop(0))
                await self._settling.wait()  # an event, or a candidate's quiet spell over
                await self._settle_once()
            except asyncio.CancelledError:
                raise
            except Exception:  # one bad drop never stops the watcher
                log.exception("watcher of %s: unexpected error; going on", self.inbox)

    async def _settle_once(self) -> None:
        settling = self._settling
        looked = settling.paths()
        if not looked:
            return
        prints = await asyncio.to_thread(_footprints, [path for path, _ in looked])
        for (path, events), mark in zip(looked, prints, strict=True):
            if self._stopping:
                return
            if not settling.settled(path, mark, time.monotonic(), events):
                continue
            try:
                await asyncio.to_thread(probe, path, path.name)
            except Incomplete:
                if settling.look_again(path, time.monotonic()):
                    continue
            except Exception:  # noqa: S110
                pass  # refused for good: taken now, and failed with its reason
            if not settling.unchanged_since(path, events):
                continue  # written to while probed: its next look decides
            settling.forget(path)
            try:
                await self._take(path)
            except OSError as exc:  # it cannot even be moved: leave it, say so, go on
                log.warning("%s cannot be taken from the inbox: %s", path.name, exc)

    # -- taking a drop --------------------------------------------------------------------------

    async def _take(self, path: Path) -> None:
        taken = self.processing / f"{int(time.time() * 1000)}-{path.name}"
        try:
            await asyncio.to_thread(path.rename, taken)  # atomic: from here the drop is ours
        except FileNotFoundError:
            return
        await self._start_job(taken)

    async def _start_job(self, source: Path) -> None:
        try:
            prepared = await asyncio.to_thread(self._prepare, source)
        except DropError as exc:
            await self._end(self._out.fail, source, str(exc))
            return
        except Exception as exc:
            log.exception("%s could not be prepared", source.name)
            await self._end(
                self._out.fail,
                source,
                f"{original(source)} could not be read ({exc}); drop it again",
            )
            return
        if not self._join_or_record(prepared):
            await self._record(prepared)

    def _join_or_record(self, prepared: Prepared) -> bool:
        """Join an earlier job with the same content and settings, if there is one (True
        when joined). On the event loop, so no job can end between the look and the join."""
        source = prepared.source
        earlier = earlier_job(self.find_by_hash(prepared.digest))
        if earlier is None:
            return False
        note = (
            f"same content and settings as job {earlier.id}; its outputs are in "
            f"{earlier.target_dir}"
        )
        log.info("%s: %s; not paid for again", source.name, note)
        if earlier.state == "done":
            self._end_soon(self._out.done, source, note)
        else:  # under way: this drop ends as that job ends
            self._sources.setdefault(earlier.id, []).append(source)
            self._notes[source] = note
        return True

    async def _record(self, prepared: Prepared) -> None:
        """Record a new job under a name of its own (the store's durable write on a worker
        thread), then hand it to the queue."""
        job, note = await asyncio.to_thread(self._new_job, prepared)
        self._sources.setdefault(job.id, []).append(prepared.source)
        if note:
            self._notes[prepared.source] = note
        self.queue(job)

    def _prepare(self, source: Path) -> Prepared:
        """Runs on a worker thread: every read and check of a taken drop."""
        return self._reader.prepare(source)

    def _new_job(self, prepared: Prepared) -> tuple[Job, str | None]:
        source = prepared.source
        target = self.target.resolve()
        name = free_name(prepared.name, self.used_names(str(target)), target)
        note = None
        if name != prepared.name:
            note = (
                f"{original(source)} was made as {name}: the name {prepared.name} was "
                f"already used by another animation in {target}"
            )
        request = prepared.request.model_copy(
            update={"drop_source": str(source), "drop_hash": prepared.digest, "drop_note": note}
        )
        return self.submit(request, name, self.target, "folder"), note

    # -- endings ------------------------------------------------------------------------------

    def finished(self, job: Job) -> None:
        sources = self._sources.pop(job.id, [])
        notes = [self._notes.pop(source, None) for source in sources]
        for source, note in zip(sources, notes, strict=True):
            if job.state == "done":
                self._end_soon(self._out.done, source, note)
            else:
                self._end_soon(
                    self._out.fail,
                    source,
                    f"the job ended {job.state}: {job.error or 'no reason given'}. "
                    f"Fix the cause and drop the file again; see: companion jobs show {job.id}",
                )

    def _end_soon(
        self, move: Callable[[Path, str | None], None], source: Path, text: str | None
    ) -> None:
        """Move a source to done/ or failed/ on a worker thread, without waiting for it."""
        if self._loop is None:
            move(source, text)
            return
        future = asyncio.ensure_future(self._end(move, source, text))
        self._endings.add(future)
        future.add_done_callback(self._endings.discard)

    async def _end(
        self, move: Callable[[Path, str | None], None], source: Path, text: str | None
    ) -> None:
        try:
            await asyncio.to_thread(move, source, text)
        except OSError:
            log.exception("%s could not be moved out of .processing", source.name)


def _footprints(paths: list[Path]) -> list[tuple[int, float] | None]:
    marks: list[tuple[int, float] | None] = []
    for path in paths:
        try:
            marks.append(footprint(path))
        except FileNotFoundError:
            marks.append(None)
        except OSError as exc:  # unreadable: forgotten until it changes again
            log.warning("%s cannot be looked at: %s", path.name, exc)
            marks.append(None)
    return marks
