"""Client-side pacing that mirrors the service's account-wide sliding windows.

The service counts creates and other requests in sliding 60-second windows (spec part 8).
A leaky bucket (aiolimiter) lets a fourth create through 20 s after a burst of three,
which a sliding window refuses; so this pacer keeps the same window the service keeps,
with a small safety margin, and one pacer is shared by every call to the same account in
the process. A 429 or a Retry-After on refusal also sets a moment before which nothing is
sent at all.

In team mode the windows and holds are the team's: `share()` hands them to an object
that keeps them for every companion of the account (companion.store.account), and this
pacer asks it for room before each request instead of counting alone, and tells it when
the request was answered: the service counts a request when it arrives, which on a busy
machine can be well after the room was given, so the team counts it from the answer."""

from __future__ import annotations

import asyncio
import os
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol

from companion.api.schema import AccountLimits

# The spec's window is a minute; benchmarks compress it for sandbox and client alike.
WINDOW = float(os.environ.get("COMPANION_RATE_WINDOW") or 60.0)
MARGIN = 0.25  # seconds added to every computed wait, for clock and transit jitter


class SharedWindows(Protocol):
    """The account's windows and 429 holds as kept for a whole team."""

    def configure(self, limits: AccountLimits, window: float) -> None: ...
    async def take_room(
        self, kind: str, limit: int | None, window: float
    ) -> tuple[float, object | None]:
        """(seconds to wait, then send; a ticket for `answered`), or while a 429's hold
        lasts (seconds to wait, then ask again; None)."""
        ...

    def answered(self, ticket: object) -> None: ...
    async def hold(self, seconds: float) -> None: ...


@dataclass(frozen=True)
class Room:
    """Room taken for one request: how long it waited for it, and (in a team's window)
    what to tell the team once the request is answered."""

    waited: float
    ticket: object | None = None
    windows: SharedWindows | None = None


@dataclass
class _Window:
    limit: int | None  # None until the account's limits are known; hits count anyway
    hits: deque[float]


class Pacer:
    def __init__(
        self, limits: AccountLimits | None = None, headroom: float = 0.0, window: float = WINDOW
    ) -> None:
        self.window = window
        self._windows: dict[str, _Window] = {}
        self._not_before = 0.0
        self._locks: dict[str, asyncio.Lock] = {}
        self.headroom = headroom
        self.shared: SharedWindows | None = None
        self._limits: AccountLimits | None = None
        self._pending: set[asyncio.Task[Any]] = set()
        if limits is not None:
            self.configure(limits)

    def configure(self, limits: AccountLimits) -> None:
        """Adopt the account's limits; `headroom` keeps a share of `other` free for
        interactive calls when a background scheduler shares this pacer."""
        self._limits = limits
        other = max(1, int(limits.other_per_minute * (1 - self.headroom)))
        for kind, limit in (("create", limits.create_per_minute), ("other", other)):
            self._window(kind).limit = max(1, limit)
        if self.shared is not None:
            self.shared.configure(limits, self.window)

    def share(self, windows: SharedWindows | None) -> None:
        """From now on, room in the windows is taken from `windows` (a team's); None
        returns to this pacer's own windows."""
        self.shared = windows
        if windows is not None and self._limits is not None:
            windows.configure(self._limits, self.window)

    def _window(self, kind: str) -> _Window:
        return self._windows.setdefault(kind, _Window(None, deque()))

    @property
    def configured(self) -> bool:
        return any(w.limit is not None for w in self._windows.values())

    def hold_until(self, moment: float) -> None:
        """Send nothing before this monotonic moment (a Retry-After on refusal)."""
        self._not_before = max(self._not_before, moment)
        if self.shared is not None:
            task = asyncio.get_running_loop().create_task(
                self.shared.hold(max(0.0, moment - time.monotonic()))
            )
            self._pending.add(task)
            task.add_done_callback(self._forget)

    def _forget(self, task: asyncio.Task[Any]) -> None:
        self._pending.discard(task)
        if not task.cancelled():
            task.exception()  # a hold the team missed is only advice; the local one stands

    def delay_for(self, kind: str, at: float) -> float:
        wait = max(0.0, self._not_before - at)
        window = self._window(kind)
        while window.hits and window.hits[0] <= at - self.window:
            window.hits.popleft()
        if window.limit is not None and len(window.hits) >= window.limit:
            oldest = window.hits[len(window.hits) - window.limit]
            wait = max(wait, oldest + self.window - at + MARGIN)
        return wait

    async def acquire(self, kind: str) -> Room:
        """Wait for room for one request and take it; pass what it returns to
        `answered` once the request is answered or failed."""
        if self.shared is not None:
            return await self._acquire_shared(self.shared, kind)
        waited = 0.0
        async with self._locks.setdefault(kind, asyncio.Lock()):
            while True:
                now = time.monotonic()
                wait = self.delay_for(kind, now)
                if wait <= 0:
                    self._window(kind).hits.append(now)
                    return Room(waited)
                await asyncio.sleep(wait)
                waited += wait

    async def _acquire_shared(self, shared: SharedWindows, kind: str) -> Room:
        waited = 0.0
        while True:
            wait = max(0.0, self._not_before - time.monotonic())
            if wait <= 0:
                wait, ticket = await shared.take_room(kind, self._window(kind).limit, self.window)
                if ticket is not None or wait <= 0:  # room now, or booked for then
                    if wait > 0:
                        await asyncio.sleep(wait)
                    return Room(waited + max(0.0, wait), ticket, shared)
            await asyncio.sleep(wait)
            waited += wait

    @staticmethod
    def answered(room: Room) -> None:
        """The request given this room was answered (or failed): the service has counted
        it by now. A request cancelled in flight is not reported; the team then counts it
        as late as it could have arrived."""
        if room.windows is not None and room.ticket is not None:
            room.windows.answered(room.ticket)
