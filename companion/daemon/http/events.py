"""Job events for server-sent-event subscribers (the plugins' progress bars)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

CLOSED = ""  # put in every queue when the daemon stops: streams end at once


class Broker:
    def __init__(self, depth: int = 256) -> None:
        self._subscribers: set[asyncio.Queue[str]] = set()
        self._depth = depth
        self.closed = False

    def close(self) -> None:
        self.closed = True
        for queue in list(self._subscribers):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(CLOSED)

    def publish(self, event: str, data: dict[str, Any]) -> None:
        message = f"event: {event}\ndata: {json.dumps(data)}\n\n"
        for queue in list(self._subscribers):
            if queue.full():  # a stalled subscriber loses old events, never blocks us
                queue.get_nowait()
            queue.put_nowait(message)

    def subscribe(self) -> asyncio.Queue[str]:
        queue: asyncio.Queue[str] = asyncio.Queue(self._depth)
        self._subscribers.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[str]) -> None:
        self._subscribers.discard(queue)

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)
