"""Creating a task as the spec says, whatever the service answers within it:

- 409 IDEMPOTENCY_IN_PROGRESS (spec 7: "wait and resend the original request", no bound
  given) is waited for, Retry-After by Retry-After, and the same key and bytes resent,
  within a generous bound; past it the outcome is unknown (never a refusal): the task
  may exist and be holding credits.
- The task an uncertain create may have made is looked for by the job's marker in its
  metadata on every page of the list (2.2 gives no order, 4.7 a page size only),
  within a bound of pages and time; the client's pacer and 429 handling keep it within
  the account's rate limits.

The task kind is a parameter throughout: one-click animations, video generations and
exports are created and found the same way."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from companion.api.client import Client
from companion.api.errors import IdempotencyInProgressError
from companion.api.schema import Task

log = logging.getLogger("companion.jobs")

MARKER = "companion_job"  # the metadata key every create of a job carries
IN_PROGRESS_BOUND = 600.0  # seconds a create may stay "still being accepted"
FIND_PAGES = 1000  # pages of a list read when looking for a job's task
FIND_SECONDS = 300.0  # and for at most this long
PAGE_SIZE = 100  # the most a page may hold (4.7); the service may give fewer


@dataclass(frozen=True)
class Found:
    task: Task | None
    complete: bool  # the whole list was read: None means the task is not there


async def find_marked(
    client: Client,
    kind: str,
    job_id: str,
    *,
    pages: int = FIND_PAGES,
    seconds: float = FIND_SECONDS,
) -> Found:
    """The task of this kind whose metadata carries job_id as its marker, looked for on
    every page of the list, in whatever order the service gives them."""
    deadline = time.monotonic() + seconds
    cursor: str | None = None
    for _ in range(pages):
        if time.monotonic() > deadline:
            break
        page = await client.list_tasks(kind, limit=PAGE_SIZE, cursor=cursor)
        for task in page.data:
            if task.metadata.get(MARKER) == job_id:
                return Found(task, True)
        if page.next_cursor is None:
            return Found(None, True)
        cursor = page.next_cursor
    log.warning(
        "job %s: its %s task was not found within %d pages and %g s of the list",
        job_id,
        kind,
        pages,
        seconds,
    )
    return Found(None, False)


async def create_when_accepted(
    send: Callable[[], Awaitable[Task]], *, bound: float = IN_PROGRESS_BOUND
) -> Task | None:
    """send() until the service has accepted the original: the task; None when it is
    still being accepted after `bound` seconds (or says a resend will not help), so
    the outcome is unknown."""
    started = time.monotonic()
    while True:
        try:
            return await send()
        except IdempotencyInProgressError as exc:
            if not exc.retryable:
                return None
            wait = exc.retry_after if exc.retry_after is not None else 1.0
            if time.monotonic() + wait - started > bound:
                return None
            log.info("the create is still being accepted; resending in %.1f s", wait)
            await asyncio.sleep(wait)
