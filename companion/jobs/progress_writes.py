"""A running job's progress, written to the store on a worker thread so polling never
waits for the disk, one write at a time (so they land in order; a newer value read while
one is in flight replaces any not yet written) and every write finished before the wait
that made them returns: the caller may close the store right after (a write that met a
closed store printed a StoreClosed traceback, and its value was lost)."""

from __future__ import annotations

import asyncio
import logging

from companion.store import Store

log = logging.getLogger("companion.jobs")


class ProgressWrites:
    def __init__(self, store: Store, job_id: str) -> None:
        self._store = store
        self._job_id = job_id
        self._next: float | None = None  # the newest value not yet handed to a thread
        self._writer: asyncio.Task[None] | None = None

    def put(self, progress: float) -> None:
        """Write progress soon (never waits)."""
        self._next = progress
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_all())

    async def _write_all(self) -> None:
        while self._next is not None:
            progress, self._next = self._next, None
            try:
                await asyncio.to_thread(self._store.update_job, self._job_id, progress=progress)
            except Exception:  # only a display: the job goes on without it
                log.warning("job %s: progress %.2f not written", self._job_id, progress)

    async def finish(self) -> None:
        """Every value put is written (or failed) when this returns, even if the caller
        is cancelled meanwhile (the cancellation is raised afterwards)."""
        cancelled = False
        while self._writer is not None and not self._writer.done():
            try:
                await asyncio.shield(self._writer)
            except asyncio.CancelledError:
                cancelled = True
        if cancelled:
            raise asyncio.CancelledError
