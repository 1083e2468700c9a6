"""Account-wide request windows: creates per minute and other requests per minute."""

from __future__ import annotations

import math
import time
from collections import deque

WINDOW = 60.0


class SlidingWindow:
    def __init__(self, window: float = WINDOW) -> None:
        self.window = window
        self._hits: dict[tuple[str, str], deque[float]] = {}

    def admit(self, account: str, kind: str, limit: int) -> int | None:
        """Record a request and return None, or refuse it and return Retry-After seconds."""
        moment = time.monotonic()
        hits = self._hits.setdefault((account, kind), deque())
        while hits and hits[0] <= moment - self.window:
            hits.popleft()
        if len(hits) >= limit:
            return max(1, math.ceil(hits[0] + self.window - moment))
        hits.append(moment)
        return None
