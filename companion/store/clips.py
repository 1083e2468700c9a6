"""The paid videos, kept: one file per job under COMPANION_HOME/clips, so a re-cut (other
frames, fps, size, range, formats) and any request of the same generation are a free
local export. They are the user's paid assets: every one is kept unless the user sets a
size cap (clip_store_mb), then the oldest go first, and a clip that went leaves a note
saying so (the quote tells it)."""

from __future__ import annotations

import json
import re
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from companion.store.errors import ClipGone

if TYPE_CHECKING:
    from companion.settings.config import Settings

_ID = re.compile(r"^[A-Za-z0-9-]{1,64}$")
_GENERATION = re.compile(r"^[0-9a-f]{64}$")  # a remote part's SHA-256: a safe file name


@dataclass(frozen=True)
class KeptClip:
    job_id: str
    path: Path
    size: int
    used: float  # when it was kept or last re-cut (the eviction order)


@dataclass(frozen=True)
class SharedClip:
    """A teammate's paid clip in the team's folder, and what they said of it."""

    path: Path
    about: dict[str, object]

    @property
    def job(self) -> str:
        return str(self.about.get("job", ""))


class ClipStore:
    def __init__(self, folder: Path, cap_bytes: int | None, shared: Path | None = None) -> None:
        self.folder = folder
        self.cap_bytes = cap_bytes
        self.shared = shared  # the team's folder of clips, by generation (None: alone)
        self._lock = threading.Lock()

    @classmethod
    def of(cls, settings: Settings) -> ClipStore:
        """The clip store the settings describe: its folder, the user's cap, the team's."""
        return cls(settings.clip_folder, settings.clip_cap_bytes, settings.team_clips)

    def _path(self, job_id: str, suffix: str = ".mp4") -> Path:
        if not _ID.match(job_id):
            raise ValueError(f"not a job id: {job_id!r}")
        return self.folder / f"{job_id}{suffix}"

    def kept(self, job_id: str) -> Path | None:
        path = self._path(job_id)
        return path if path.is_file() else None

    def was_evicted(self, job_id: str) -> bool:
        """The job's clip was kept once and the size cap let it go."""
        return self.kept(job_id) is None and self._path(job_id, ".evicted").exists()

    def keep(self, job_id: str, source: Path, *, move: bool = False) -> Path:
        """Keep source as the job's clip (moved when it is ours to take, else copied,
        through a temporary name so a half copy is never a clip), then evict down to the
        cap, oldest first, never the clip just kept."""
        self.folder.mkdir(parents=True, exist_ok=True)
        final = self._path(job_id)
        part = self._path(job_id, ".part")
        if move:
            shutil.move(source, part)  # a rename on one filesystem
        else:
            shutil.copyfile(source, part)
        part.replace(final)
        self._path(job_id, ".evicted").unlink(missing_ok=True)
        self.evict(keep=job_id)
        return final

    def listing(self) -> list[KeptClip]:
        """Every kept clip, oldest first (the first to go under a cap)."""
        found = []
        for path in self.folder.glob("*.mp4") if self.folder.is_dir() else ():
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue  # evicted meanwhile
            found.append(KeptClip(path.stem, path, stat.st_size, stat.st_mtime))
        return sorted(found, key=lambda c: c.used)

    def evicted(self) -> list[str]:
        """The jobs whose clip the cap let go."""
        notes = self.folder.glob("*.evicted") if self.folder.is_dir() else ()
        return sorted(p.stem for p in notes if self.kept(p.stem) is None)

    def publish(self, job_id: str, generation: str, about: dict[str, object]) -> bool:
        """The job's kept clip into the team's folder under its generation, once (the
        first member to publish it wins; a half copy is never a clip). True if copied."""
        kept = self.kept(job_id)
        if self.shared is None or kept is None or not _GENERATION.match(generation):
            return False
        final = self.shared / f"{generation}.mp4"
        if final.exists():
            return False
        self.shared.mkdir(parents=True, exist_ok=True)
        part = self.shared / f"{generation}.{job_id}.part"
        shutil.copyfile(kept, part)
        (self.shared / f"{generation}.json").write_text(json.dumps({**about, "job": job_id}))
        part.replace(final)
        return True

    def shared_clip(self, generation: str | None) -> SharedClip | None:
        """The team's clip of this generation, if a member published one."""
        if self.shared is None or not generation or not _GENERATION.match(generation):
            return None
        path = self.shared / f"{generation}.mp4"
        if not path.is_file():
            return None
        try:
            about = json.loads((self.shared / f"{generation}.json").read_text())
        except (OSError, ValueError):
            about = {}
        return SharedClip(path, about if isinstance(about, dict) else {})

    def evict(self, keep: str | None = None) -> list[str]:
        """Oldest clips out until the folder fits its cap (none without a cap); returns
        the evicted job ids."""
        cap = self.cap_bytes
        if cap is None:
            return []
        with self._lock:
            clips = sorted(
                (p for p in self.folder.glob("*.mp4") if p.is_file()),
                key=lambda p: p.stat().st_mtime,
            )
            total = sum(p.stat().st_size for p in clips)
            gone: list[str] = []
            for clip in clips:
                if total <= cap:
                    break
                if clip.stem == keep:
                    continue
                total -= clip.stat().st_size
                clip.unlink(missing_ok=True)
                (self.folder / f"{clip.stem}.evicted").write_text(str(time.time()))
                gone.append(clip.stem)
            return gone

    def require(self, job_id: str) -> Path:
        path = self.kept(job_id)
        if path is not None:
            path.touch()  # used: it is the newest now, the last to be evicted
            return path
        if self._path(job_id, ".evicted").exists():
            cap = "" if self.cap_bytes is None else f"{self.cap_bytes // 2**20} MB, "
            raise ClipGone(
                f"the video of job {job_id[:8]} is no longer kept: the clip store "
                f"({cap}clip_store_mb in config.yaml) let it go to "
                "make room, oldest first; generate it again (it is paid again) to re-cut it"
            )
        raise ClipGone(
            f"job {job_id[:8]} has no kept video: it did not finish at the service, or it "
            "ran before the companion kept videos"
        )
