"""Client-side pacing that mirrors the service's account-wide sliding windows.

The service counts creates and other requests in sliding 60-second windows (spec part 8).
A leaky bucket (aiolimiter) lets a fourth create through 20 s after a burst of three,
which a sliding window refuses; so this pacer keeps the same window the service keeps,
with a small safety margin, and one pacer is shared by every call to the same account in
the process. A 429 or a Retry-After on refusal also sets a moment before which nothing is
sent at all."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass

from companion.api.schema import AccountLimits

WINDOW = 60.0
MARGIN = 0.25  # seconds added to every computed wait, for clock and transit jitter


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
        if limits is not None:
            self.configure(limits)

    def configure(self, limits: AccountLimits) -> None:
        """Adopt the account's limits; `headroom` keeps a share of `other` free for
        interactive calls when a background scheduler shares this pacer."""
        other = max(1, int(limits.other_per_minute * (1 - self.headroom)))
        for kind, limit in (("create", limits.create_per_minute), ("other", other)):
            self._window(kind).limit = max(1, limit)

    def _window(self, kind: str) -> _Window:
        return self._windows.setdefault(kind, _Window(None, deque()))

    @property
    def configured(self) -> bool:
        return any(w.limit is not None for w in self._windows.values())

    def hold_until(self, moment: float) -> None:
        """Send nothing before this monotonic moment (a Retry-After on refusal)."""
        self._not_before = max(self._not_before, moment)

    def delay_for(self, kind: str, at: float) -> float:
        wait = max(0.0, self._not_before - at)
        window = self._window(kind)
        while window.hits and window.hits[0] <= at - self.window:
            window.hits.popleft()
        if window.limit is not None and len(window.hits) >= window.limit:
            oldest = window.hits[len(window.hits) - window.limit]
            wait = max(wait, oldest + self.window - at + MARGIN)
        return wait

    async def acquire(self, kind: str) -> float:
        """Wait for a slot and take it; returns how long it waited."""
        waited = 0.0
        async with self._locks.setdefault(kind, asyncio.Lock()):
            while True:
                now = time.monotonic()
                wait = self.delay_for(kind, now)
                if wait <= 0:
                    self._window(kind).hits.append(now)
                    return waited
                await asyncio.sleep(wait)
                waited += wait
