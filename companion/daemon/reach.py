"""Whether the service answers, as the daemon last saw it.

The daemon starts whether or not the service answers: the plugins and the status page
must work offline, and work submitted meanwhile waits in the queue. While the service
is away, workers wait on `online` instead of failing job after job; one probe looks for
it again with growing pauses (a second, doubling, at most PROBE_CAP), and everyone goes
on the moment it answers. A refusal (a bad key, a paused account) is not "away": the
service answered, so work goes on and each job says what was refused."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from companion.api.errors import (
    ApiStatusError,
    CompanionApiError,
    DeadlineExceededError,
    TransportError,
)
from companion.api.schema import AccountResponse

log = logging.getLogger("companion.daemon")
PROBE_FIRST = 1.0
PROBE_CAP = 30.0

Probe = Callable[[], Awaitable[AccountResponse]]


def unreachable(exc: BaseException) -> bool:
    """A failure that says the service is away, not that it refused something."""
    if isinstance(exc, TransportError | DeadlineExceededError):
        return True
    return isinstance(exc, ApiStatusError) and exc.status in (502, 503, 504)


class Reach:
    def __init__(self, probe: Probe, on_account: Callable[[AccountResponse], None]) -> None:
        self._probe = probe
        self._on_account = on_account
        self.online = asyncio.Event()
        self.error: str | None = None
        self.since = time.time()
        self.next_try: float | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def reachable(self) -> bool:
        return self.online.is_set()

    async def first_look(self) -> None:
        """One look at start-up; away, the daemon starts anyway and keeps looking."""
        try:
            account = await self._probe()
        except CompanionApiError as exc:
            if isinstance(exc, ApiStatusError) and exc.status in (401, 403):
                raise  # the key or the account: no use starting
            self.lost(exc)  # away, busy (429) or failing: work waits, the probe goes on
            return
        self._found(account)

    def lost(self, exc: BaseException) -> None:
        """The service stopped answering: work waits, a probe looks for it."""
        if self.online.is_set() or self.error is None:
            log.warning("the service does not answer (%s); work waits until it does", exc)
            self.since = time.time()
        self.online.clear()
        self.error = str(exc) or type(exc).__name__
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._look_again())

    def _found(self, account: AccountResponse) -> None:
        if not self.online.is_set() and self.error is not None:
            log.info("the service answers again; queued work goes on")
        self.error = None
        self.next_try = None
        self.since = time.time()
        self._on_account(account)
        self.online.set()

    async def _look_again(self) -> None:
        pause = PROBE_FIRST
        while True:
            self.next_try = time.time() + pause
            await asyncio.sleep(pause)
            try:
                account = await self._probe()
            except CompanionApiError as exc:
                if unreachable(exc):
                    self.error = str(exc) or type(exc).__name__
                    pause = min(PROBE_CAP, pause * 2)
                    continue
                log.warning("the service answers but refuses: %s", exc)
                self.error = None
                self.online.set()
                return
            self._found(account)
            return

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
