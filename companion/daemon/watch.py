"""Watched drop folders: an image (or a folder of frames) dropped into a project's inbox
becomes a job, and its results land in the project's target folder.

- Candidates come from watchdog (a polling observer for network drives) and from a scan
  at start-up for what arrived while the daemon was down.
- A file is taken only once its size and mtime have held still for `stable_seconds` and
  it decodes as an image. Temporary and hidden names are ignored, so a save that writes a
  temp file and renames it is seen once, under its final name.
- A dropped folder is one job: `first.*` (or its only image) is the first frame, `last.*`
  the last frame, `ref*.*` reference images, `animation.yaml` the settings.
- Settings come from a sidecar (`hero.yaml` beside `hero.png`, or the folder's
  `animation.yaml`) validated like the API's requests, over the project's defaults.
- A taken source is first renamed into `inbox/.processing/`; when its job ends it moves
  to `done/`, or to `failed/` beside a `.error.txt` that says what to do. Nothing is lost
  across restarts: what sits in `.processing/` without a job gets one.
- The same content with the same settings is never paid for twice: a hash of both finds
  the earlier job, whose outputs are already installed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from PIL import Image, UnidentifiedImageError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.polling import PollingObserver

from companion.api.schema import ExportOptions, Selection, VideoOptions
from companion.api.schema.base import first_error
from companion.api.schema.requests import one_click_export
from companion.install.plan import Placement, default_target
from companion.media.export import safe_name
from companion.store import Job

log = logging.getLogger("companion.daemon.watch")

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp"})
TEMPORARY_SUFFIXES = (".tmp", ".part", ".crdownload", ".download", "~", ".swp")
SPECIAL = frozenset({"done", "failed", ".processing"})
FOLDER_SETTINGS = "animation.yaml"


class DropSettings(BaseModel):
    """What a sidecar may say; anything else is an error reported next to the file."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(default="", max_length=8000)
    name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
    export: ExportOptions = Field(default_factory=ExportOptions)
    video: VideoOptions = Field(default_factory=VideoOptions)
    selection: Selection = Field(default_factory=Selection)

    _one_click = field_validator("export")(one_click_export)


class DropError(Exception):
    """Why a drop cannot become a job; written to failed/NAME.error.txt."""


@dataclass
class Candidate:
    size: int = -1
    mtime: float = -1.0
    since: float = field(default_factory=time.monotonic)


def _ignored(path: Path) -> bool:
    name = path.name
    return (
        name.startswith(".")
        or name.startswith("~")
        or name.endswith(TEMPORARY_SUFFIXES)
        or name in SPECIAL
        or name.endswith((".error.txt", ".yaml", ".yml"))
    )


class _Events(FileSystemEventHandler):
    def __init__(self, notify: Callable[[Path], None], inbox: Path) -> None:
        self.notify = notify
        self.inbox = inbox

    def on_any_event(self, event: FileSystemEvent) -> None:
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
        submit: Callable[[dict[str, Any], str, Path, str], Job],
        find_by_hash: Callable[[str], Job | None],
        *,
        stable_seconds: float = 0.5,
        polling: bool = False,
    ) -> None:
        self.root = Path(project["root"])
        self.inbox = self.root / project.get("inbox", "inbox")
        self.engine = str(project.get("engine") or "other")
        self.target = self.root / (project.get("target") or default_target(self.engine))
        self.defaults = project.get("defaults") or {}
        self.submit = submit
        self.find_by_hash = find_by_hash
        self.stable_seconds = stable_seconds
        self.polling = polling or bool(project.get("poll"))
        self.processing = self.inbox / ".processing"
        self._candidates: dict[Path, Candidate] = {}
        self._observer: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._sources: dict[str, Path] = {}  # job id -> its source in .processing

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self, known: list[Job]) -> None:
        for folder in (self.inbox, self.processing, self.inbox / "done", self.inbox / "failed"):
            folder.mkdir(parents=True, exist_ok=True)
        self._loop = asyncio.get_running_loop()
        self._adopt_processing(known)
        for entry in sorted(self.inbox.iterdir()):  # what arrived while we were down
            self._notice(entry)
        self._observer = PollingObserver(timeout=0.5) if self.polling else Observer()
        self._observer.schedule(
            _Events(self._notice_threadsafe, self.inbox), str(self.inbox), recursive=True
        )
        self._observer.start()
        self._task = asyncio.create_task(self._settle())

    async def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            await asyncio.get_running_loop().run_in_executor(None, self._observer.join, 5)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def _adopt_processing(self, known: list[Job]) -> None:
        by_source = {j.request.get("drop_source"): j for j in known if j.request.get("drop_source")}
        for entry in sorted(self.processing.iterdir()):
            job = by_source.get(str(entry))
            if job is None:  # taken, but the job was never recorded: record it now
                self._start_job(entry)
            else:
                self._sources[job.id] = entry
                if job.state in ("done", "failed", "cancelled"):
                    self.finished(job)

    # -- noticing and settling ----------------------------------------------------------------

    def _notice_threadsafe(self, path: Path) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._notice, path)

    def _notice(self, path: Path) -> None:
        if not _ignored(path):
            self._candidates.setdefault(path, Candidate())

    async def _settle(self) -> None:
        while True:
            await asyncio.sleep(min(0.1, self.stable_seconds / 3))
            for path, seen in list(self._candidates.items()):
                try:
                    size, mtime = _footprint(path)
                except FileNotFoundError:
                    del self._candidates[path]  # renamed away (a temp file) or removed
                    continue
                if (size, mtime) != (seen.size, seen.mtime):
                    seen.size, seen.mtime, seen.since = size, mtime, time.monotonic()
                    continue
                if time.monotonic() - seen.since >= self.stable_seconds:
                    del self._candidates[path]
                    self._take(path)

    # -- taking a drop --------------------------------------------------------------------------

    def _take(self, path: Path) -> None:
        taken = self.processing / f"{int(time.time() * 1000)}-{path.name}"
        try:
            path.rename(taken)  # atomic: from here the drop is ours
        except FileNotFoundError:
            return
        self._start_job(taken)

    def _start_job(self, source: Path) -> None:
        try:
            request, name, digest = self._request(source)
        except DropError as exc:
            self._fail(source, str(exc))
            return
        earlier = self.find_by_hash(digest)
        if earlier is not None and earlier.state not in ("failed", "cancelled"):
            log.info(
                "%s: same content and settings as job %s; not paid for again",
                source.name,
                earlier.id,
            )
            self._done(
                source,
                note=f"same content and settings as job {earlier.id}; its "
                f"outputs are in {earlier.target_dir}",
            )
            return
        request.update(
            drop_source=str(source),
            drop_hash=digest,
            install=Placement(self.engine, self.root, self.target).to_json(),
        )
        job = self.submit(request, name, self.target, "folder")
        self._sources[job.id] = source

    def _request(self, source: Path) -> tuple[dict[str, Any], str, str]:
        images: dict[str, Any]
        if source.is_dir():
            images, sidecar = self._folder_images(source), source / FOLDER_SETTINGS
            stem = source.name.split("-", 1)[-1]
        else:
            if source.suffix.lower() not in IMAGE_SUFFIXES:
                raise DropError(
                    f"{_original(source)} is not an image (PNG, JPEG or WebP); "
                    "drop image files or folders of them"
                )
            images = {"image": str(source), "last_frame": None, "references": []}
            stem = Path(_original(source)).stem
            sidecar = self.inbox / f"{stem}.yaml"
        for key in ("image", "last_frame"):
            if images.get(key):
                _check_image(Path(images[key]))
        for reference in images["references"]:
            _check_image(Path(reference))
        settings = self._settings(sidecar, source)
        name = settings.name or safe_name(stem)
        request = {
            **images,
            "prompt": settings.prompt,
            "video": settings.video.model_dump(mode="json"),
            "export": settings.export.model_dump(mode="json"),
            "selection": settings.selection.model_dump(mode="json"),
        }
        digest = hashlib.sha256()
        for key in ("image", "last_frame"):
            if images.get(key):
                digest.update(Path(images[key]).read_bytes())
        for reference in images["references"]:
            digest.update(Path(reference).read_bytes())
        digest.update(
            json.dumps(
                {k: request[k] for k in ("prompt", "video", "export", "selection")}, sort_keys=True
            ).encode()
        )
        return request, name, digest.hexdigest()

    def _folder_images(self, folder: Path) -> dict[str, Any]:
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        firsts = [p for p in files if p.stem.lower() == "first"]
        lasts = [p for p in files if p.stem.lower() == "last"]
        references = [p for p in files if p.stem.lower().startswith("ref")]
        others = [p for p in files if p not in firsts + lasts + references]
        first = firsts[0] if firsts else (others[0] if len(others) == 1 else None)
        if first is None:
            raise DropError(
                f"{_original(folder)}: name the first frame first.png (the folder "
                "holds no image, or several without a first.*)"
            )
        return {
            "image": str(first),
            "last_frame": str(lasts[0]) if lasts else None,
            "references": [str(p) for p in references[:8]],
        }

    def _settings(self, sidecar: Path, source: Path) -> DropSettings:
        values: dict[str, Any] = json.loads(json.dumps(self.defaults))
        if sidecar.exists():
            try:
                loaded = yaml.safe_load(sidecar.read_text()) or {}
            except (yaml.YAMLError, UnicodeDecodeError) as exc:
                raise DropError(f"{sidecar.name} is not valid YAML: {exc}") from exc
            if not isinstance(loaded, dict):
                raise DropError(f"{sidecar.name} must be a mapping (prompt:, export:, ...)")
            values = _merge(values, loaded)
        try:
            return DropSettings.model_validate(values)
        except ValidationError as exc:
            param, message = first_error(exc)
            raise DropError(
                f"{sidecar.name if sidecar.exists() else 'the project defaults'}: "
                f"{param}: {message}"
            ) from exc

    # -- endings ------------------------------------------------------------------------------

    def finished(self, job: Job) -> None:
        source = self._sources.pop(job.id, None)
        if source is None or not source.exists():
            return
        if job.state == "done":
            self._done(source)
        else:
            self._fail(
                source,
                f"the job ended {job.state}: {job.error or 'no reason given'}. "
                f"Fix the cause and drop the file again; see: companion jobs show {job.id}",
            )

    def _done(self, source: Path, note: str | None = None) -> None:
        target = _free(self.inbox / "done" / _original(source))
        shutil.move(str(source), target)
        if note:
            target.with_name(target.name + ".note.txt").write_text(note + "\n")

    def _fail(self, source: Path, reason: str) -> None:
        target = _free(self.inbox / "failed" / _original(source))
        shutil.move(str(source), target)
        target.with_name(target.name + ".error.txt").write_text(reason + "\n")
        log.info("%s failed: %s", target.name, reason)


def _footprint(path: Path) -> tuple[int, float]:
    if path.is_dir():
        entries = [p.stat() for p in path.rglob("*")]
        own = path.stat()
        return (
            sum(e.st_size for e in entries) + len(entries),
            max([own.st_mtime, *(e.st_mtime for e in entries)]),
        )
    info = path.stat()
    return info.st_size, info.st_mtime


def _check_image(path: Path) -> None:
    try:
        with Image.open(path) as image:
            if image.format not in ("PNG", "JPEG", "WEBP"):
                raise DropError(f"{path.name} is {image.format}; use PNG, JPEG or WebP")
            image.load()
    except (UnidentifiedImageError, OSError, SyntaxError) as exc:
        raise DropError(
            f"{path.name} cannot be decoded as an image (damaged, or still "
            "being written when it was taken); save it again"
        ) from exc


def _original(taken: Path) -> str:
    return taken.name.split("-", 1)[-1] if taken.parent.name == ".processing" else taken.name


def _free(path: Path) -> Path:
    candidate, n = path, 1
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}.{n}{path.suffix}")
        n += 1
    return candidate


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged
