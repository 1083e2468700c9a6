"""Run each output writer on its own thread, fed through a short queue.

The encoders (libav, zlib, the quantizer) release the GIL, so with one thread per writer
the decode, the keyer and every encoder overlap instead of taking turns. Queues are a few
frames deep, which keeps memory bounded however long the video is."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
_DONE = object()


class ThreadedSink(Generic[T]):
    def __init__(self, name: str, handle: Callable[[T], None], depth: int = 4) -> None:
        self._handle = handle
        self._queue: queue.Queue[object] = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=f"writer-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _DONE:
                return
            if self._error is not None:
                continue  # keep draining so the producer never blocks on a dead writer
            try:
                self._handle(item)  # type: ignore[arg-type]
            except BaseException as exc:  # re-raised in the producer by join()
                self._error = exc

    def put(self, item: T) -> None:
        if self._error is not None:
            self.join()
        self._queue.put(item)

    def join(self) -> None:
        """Wait for every queued item; raise the writer's error if it had one."""
        if self._thread.is_alive():
            self._queue.put(_DONE)
            self._thread.join()
        if self._error is not None:
            raise self._error
