"""Run each output writer on its own thread, fed through a short queue.

The encoders (libav, zlib, the quantizer) release the GIL, so with one thread per writer
the decode, the keyer and every encoder overlap instead of taking turns. Queues are a few
frames deep, which keeps memory bounded however long the video is."""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")
_DONE = object()


class ThreadedSink(Generic[T, R]):
    """handle() takes every item in order; close(), when given, runs on the same thread
    after the last one, so writers finish side by side. Its value is result()."""

    def __init__(
        self,
        name: str,
        handle: Callable[[T], None],
        depth: int = 4,
        close: Callable[[], R] | None = None,
    ) -> None:
        self._handle = handle
        self._close = close
        self._result: R | None = None
        self._finished = False
        self._queue: queue.Queue[object] = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=f"writer-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _DONE:
                if self._error is None and self._close is not None:
                    try:
                        self._result = self._close()
                    except BaseException as exc:
                        self._error = exc
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

    def finish(self) -> None:
        """Tell the writer no more items come; it closes on its own thread."""
        if not self._finished:
            self._finished = True
            self._queue.put(_DONE)

    def join(self) -> None:
        """Wait for every queued item (and close); raise the writer's error if it had one."""
        self.finish()
        self._thread.join()
        if self._error is not None:
            raise self._error

    def result(self) -> R:
        self.join()
        if self._result is None:
            raise RuntimeError("writer had no close step")
        return self._result


class InOrder(Generic[T, R]):
    """Work run side by side on a small pool (the encoders release the GIL), its results
    taken back in the order it was given, each with its tag. At most `ahead` results are
    waiting, so the frames held do not grow with the video."""

    def __init__(self, workers: int, name: str, ahead: int | None = None) -> None:
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix=name)
        self._ahead = workers if ahead is None else ahead
        self._waiting: deque[tuple[T, Future[R]]] = deque()

    def submit(self, tag: T, work: Callable[..., R], *args: object) -> None:
        self._waiting.append((tag, self._pool.submit(work, *args)))

    def ready(self) -> Iterator[tuple[T, R]]:
        """The oldest results while more than `ahead` wait (raises a worker's error)."""
        return self._take(self._ahead)

    def rest(self) -> Iterator[tuple[T, R]]:
        """Every result still waiting, in order."""
        return self._take(0)

    def _take(self, keep: int) -> Iterator[tuple[T, R]]:
        while len(self._waiting) > keep:
            tag, future = self._waiting.popleft()
            yield tag, future.result()

    def shutdown(self) -> None:
        self._pool.shutdown()
