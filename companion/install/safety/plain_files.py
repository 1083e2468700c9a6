"""The one way a user's file is read: a plain file only, never waiting and never without
an end. A project (a cloned repository, a careless user) can hold a FIFO, a folder or a
link to /dev/zero where a file is expected; opening a FIFO blocks until a writer comes
and /dev/zero never ends, so each would hold a worker thread forever. The file is opened
without blocking and checked to be a regular file on the open descriptor (no race with
a swap in between), and what is read is bounded."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from companion.install.errors import NotPlainFile

TEXT_LIMIT = 4 * 2**20  # a user's .tres, .anim, .meta or plugin.cfg: far larger is not one


@contextmanager
def open_plain(path: Path, *, follow: bool = True) -> Iterator[BinaryIO]:
    """path opened for reading, or NotPlainFile when it is not a regular file; a link is
    followed only when follow is true (its end must be a regular file too)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if not follow and path.is_symlink():
            raise NotPlainFile(f"{path} is a symbolic link; it is left alone") from exc
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotPlainFile(f"{path} is not a plain file")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as source:
        yield source


def read_plain(path: Path, limit: int = TEXT_LIMIT, *, follow: bool = True) -> bytes:
    """The bytes of a plain file of at most limit bytes; NotPlainFile otherwise."""
    with open_plain(path, follow=follow) as source:
        data = source.read(limit + 1)
    if len(data) > limit:
        raise NotPlainFile(f"{path} is larger than {limit} bytes")
    return data


def read_plain_text(path: Path, limit: int = TEXT_LIMIT, *, follow: bool = True) -> str:
    """read_plain decoded as UTF-8 (UnicodeDecodeError when it is not)."""
    return read_plain(path, limit, follow=follow).decode("utf-8")


def sha256_plain(path: Path) -> str:
    """The SHA-256 of a plain file, streamed (outputs may be large)."""
    digest = hashlib.sha256()
    with open_plain(path) as source:
        for block in iter(lambda: source.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
