"""Where a taken drop ends: done/ (with a note when it was renamed or joined an earlier
job) or failed/ beside a `.error.txt` that says what to do; its sidecar goes with it
under a name free for both. Nothing is deleted."""

from __future__ import annotations

import logging
import shutil
import stat
import threading
from pathlib import Path

from companion.daemon.inbox.names import exists, free, original, sidecar_beside

log = logging.getLogger("companion.daemon.inbox.watch")


class Endings:
    def __init__(self, inbox: Path) -> None:
        self.inbox = inbox
        self._moves = threading.Lock()  # done/ and failed/ names are chosen one at a time

    def done(self, source: Path, note: str | None = None) -> None:
        self._move_out(source, "done", (".note.txt", note) if note else None)

    def fail(self, source: Path, reason: str | None) -> None:
        target = self._move_out(source, "failed", (".error.txt", f"{reason}"))
        if target is not None:
            log.info("%s failed: %s", target.name, reason)

    def _move_out(
        self, source: Path, folder: str, beside: tuple[str, str] | None = None
    ) -> Path | None:
        """Move a taken source, and the sidecar it took, to done/ or failed/ under names
        free for both (hero.1.png with hero.1.yaml); None when it is gone already.
        beside: a text (suffix, words) written next to it first, so whoever sees the
        source arrive in failed/ finds its reason there too."""
        with self._moves:
            if not exists(source):
                return None
            name = original(source)
            whole = stat.S_ISDIR(source.lstat().st_mode)  # a folder brings its own
            sidecar = None if whole else sidecar_beside(source, Path(name).stem)
            if sidecar is not None and not exists(sidecar):
                sidecar = None
            target = free(self.inbox / folder / name, also=".yaml" if sidecar else None)
            if beside is not None:
                suffix, words = beside
                target.with_name(target.name + suffix).write_text(words + "\n")
            shutil.move(str(source), target)
            if sidecar is not None:
                sidecar.rename(target.with_suffix(".yaml"))  # a rename: a folder moves whole
        return target

    def orphan_sidecar(self, sidecar: Path) -> None:
        """A sidecar left in .processing by a stop between its picture's move and its
        own: it follows the picture into failed/ (nothing is deleted)."""
        with self._moves:
            target = free(self.inbox / "failed" / original(sidecar))
            sidecar.rename(target)
        target.with_name(target.name + ".error.txt").write_text(
            "left in .processing when the daemon stopped; its picture is already in done/ "
            "or failed/\n"
        )
