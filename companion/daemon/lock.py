"""One daemon per COMPANION_HOME.

`companion serve` holds an exclusive lock on COMPANION_HOME/daemon.lock for its whole
life (flock on POSIX, msvcrt on Windows). The operating system lets go of it when the
process ends, however it ends (kill -9 included), so a stale lock never blocks a start.
The file holds the owner's pid, so a second daemon can say which process has the home."""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType
from typing import IO

from companion.daemon.errors import HomeInUse
from companion.settings.filelock import lock_file as _lock
from companion.settings.filelock import unlock_file as _unlock


class HomeLock:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = home / "daemon.lock"
        self._file: IO[str] | None = None

    def acquire(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+")
        try:
            _lock(handle)
        except OSError:
            try:
                handle.seek(0)
                text = handle.read().strip()
            except OSError:  # Windows: the owner's locked byte cannot be read
                text = ""
            handle.close()
            raise HomeInUse(self.home, int(text) if text.isdigit() else None) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self._file is None:
            return
        self._file.seek(0)
        self._file.truncate()  # no pid of a process that has gone
        self._file.flush()
        _unlock(self._file)
        self._file.close()
        self._file = None

    def __enter__(self) -> HomeLock:
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()
