"""An exclusive, non-blocking lock on an open file that the operating system lets go of
when the process ends, however it ends (flock on POSIX, msvcrt on Windows). OSError
when another process holds it."""

from __future__ import annotations

import sys
from typing import IO

if sys.platform == "win32":
    import msvcrt

    def lock_file(handle: IO[str]) -> None:
        handle.seek(0)
        # The first byte, past the end of an empty file: Windows locks ranges, not files.
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)

    def unlock_file(handle: IO[str]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def lock_file(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def unlock_file(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
