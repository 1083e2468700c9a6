"""The books as the service keeps them, after a create and after the end.

- The price as created (spec 4.4: "creation recalculates the price"; 2.3: `quoted` is
  "not necessarily the final charge"): a created task's own credits are what it costs,
  held against the quote the user approved (plus the margin the user allowed, config
  `price_margin_percent`) and the budgets.
- Credits final (2.3 `credits.status`): a task's end is not its books' end; its credits
  are read again until `charged`, `refunded` or `released` (`managed`: internal child
  tasks; no status at all: the figures are all the service says), within a bound.
  Where the bound passes first, the job moves on with its hold still counted, and the
  books follow it later (`follow_pending`: at `companion credits`, `engine.reconcile`,
  `companion jobs run` and the daemon's start)."""

from __future__ import annotations

import asyncio
import logging
import time

from companion.api.client import Client
from companion.api.errors import NotFoundError
from companion.api.schema import CreditUsage, Task
from companion.store import Store
from companion.store.account import SharedAccount

log = logging.getLogger("companion.jobs")

FINAL_CREDITS = frozenset({"charged", "refunded", "released", "managed"})
FOLLOW_SECONDS = 30.0  # how long a job's end waits for its credits to be final
FOLLOW_READS = 30
FOLLOW_PAUSE = 1.0  # seconds between two reads, unless the service's Retry-After says more
KINDS = ("animation", "video_generation", "animation_export")


def created_price(credits: CreditUsage) -> int:
    """What a created task costs by its own credits: its hold, or its quoted total when
    that says more (a hold is what is reserved, the quoted total what it is priced at)."""
    return max(credits.held, credits.quoted)


def allowed_price(quote: int, margin_percent: float) -> int:
    """The most a task quoted at `quote` may cost as created without asking again."""
    return quote + int(quote * margin_percent / 100)


def credits_final(task: Task) -> bool:
    status = task.credits.status
    if status is None:
        return task.is_terminal  # not said: what the end shows is all there is
    return str(status) in FINAL_CREDITS


async def follow_credits(
    client: Client,
    task: Task,
    *,
    seconds: float = FOLLOW_SECONDS,
    reads: int = FOLLOW_READS,
) -> Task:
    """The terminal task read again until its credits are final, or the bound passes
    (then its last read, credits still held)."""
    deadline = time.monotonic() + seconds
    while not credits_final(task) and reads > 0 and time.monotonic() < deadline:
        await asyncio.sleep(FOLLOW_PAUSE)  # get_task waits for Retry-After as well
        task = await client.get_task(str(task.object), str(task.id))
        reads -= 1
    return task


async def read_task(client: Client, task_id: str, kinds: tuple[str, ...] = KINDS) -> Task | None:
    """A task by its id, whichever of the kinds it is (ids do not say)."""
    for kind in kinds:
        try:
            return await client.get_task(kind, task_id)
        except NotFoundError:
            continue
    return None


async def settle_task(account: SharedAccount, job_id: str, credits: CreditUsage) -> None:
    await account.settle(job_id, credits.charged, credits.refunded, credits.released)


def pending(store: Store) -> list[tuple[str, str]]:
    """(job id, task id) of jobs whose task has ended while its credits are still held
    in the books: the service had not posted them when the job moved on."""
    found = []
    for job in store.jobs():
        if job.remote_id and job.remote_status and store.credit_moves(job.id)["held"]:
            found.append((job.id, job.remote_id))
    return found


async def follow_pending(store: Store, client: Client, account: SharedAccount) -> int:
    """Read each pending job's task once more and enter what is final now; the number
    of jobs still pending."""
    left = 0
    for job_id, task_id in await asyncio.to_thread(pending, store):
        task = await read_task(client, task_id)
        if task is not None and credits_final(task):
            await settle_task(account, job_id, task.credits)
            log.info("job %s: its credits were posted after its end; entered", job_id)
        else:
            left += 1
    return left
