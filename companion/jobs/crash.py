"""Crash points for the kill test: with COMPANION_CRASH_AT=<point>[:<n>] the process
kills itself with SIGKILL the n-th time (default first) it reaches that point. Points:
after_persist, after_send, mid_poll, mid_download, mid_install."""

from __future__ import annotations

import os
import signal

_hits: dict[str, int] = {}


def crash_point(name: str) -> None:
    wanted = os.environ.get("COMPANION_CRASH_AT")
    if not wanted:
        return
    point, _, count = wanted.partition(":")
    if point != name:
        return
    _hits[name] = _hits.get(name, 0) + 1
    if _hits[name] >= int(count or 1):
        os.kill(os.getpid(), signal.SIGKILL)
