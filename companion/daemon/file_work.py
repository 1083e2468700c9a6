"""Work on a project's files for a request (hashing a conflict, merging a user's .tres,
removing a job's files, drawing a contact sheet) runs here: off the event loop, in a
small pool of its own, each call bounded in time. However many such requests one
client sends at once, they wait for this pool's few threads and never take the shared
one that /status and the job workers use; a call that outlives its bound answers 503
while its thread finishes (reads are of plain files with a size bound, so it does)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from companion.daemon.errors import FilesBusy

T = TypeVar("T")
THREADS = 3
SECONDS = 15.0  # longer than any honest read of a project's files takes

_pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="companion-files")


async def on_files(fn: Callable[..., T], *args: object, seconds: float = SECONDS) -> T:
    """fn(*args) in the files pool, or FilesBusy after `seconds`."""
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(_pool, functools.partial(fn, *args))
    try:
        return await asyncio.wait_for(future, seconds)
    except TimeoutError as exc:
        raise FilesBusy(
            f"the project's files did not answer within {seconds:g} s; try again"
        ) from exc
