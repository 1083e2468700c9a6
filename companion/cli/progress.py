"""What a command is doing while it waits, on stderr.

On a terminal: a progress bar per stage (its name, percent, bytes for a download, time
left), drawn by rich, imported only here and only then, so `companion --help` never
loads it. Otherwise (a pipe, a log file, or --json): plain lines for a stage that takes
more than a second (`companion: generating (video_generation) 50%`), that a log reader
can follow."""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, Any, Protocol

from companion.cli.errors import say

if TYPE_CHECKING:
    from companion.store import Job, Store


class Reporter(Protocol):
    def update(
        self, stage: str, fraction: float, done_bytes: int | None = None, total: int | None = None
    ) -> None: ...

    def note(self, message: str) -> None: ...

    def close(self) -> None: ...


def reporter(as_json: bool = False) -> Reporter:
    """A bar on a terminal, plain lines anywhere else or with --json."""
    if not as_json and sys.stderr.isatty() and os.environ.get("TERM") != "dumb":
        return Bar()
    return Lines()


def no_news(job: Job, store: Store) -> bool:
    """A task the service ended without success (a cancel) that kept no output still
    passes through downloading and installing, each written for a crash to resume from;
    with nothing to fetch they are not said, and the next line is the job's end."""
    return (
        job.remote_status not in (None, "succeeded")
        and job.state in ("downloading", "installing")
        and not store.assets(job.id)
    )


def _bytes(done: int | None, total: int | None) -> str:
    if done is None or not total:
        return ""
    if total < 10_000_000:
        return f"{done / 1e3:,.0f} of {total / 1e3:,.0f} kB"
    return f"{done / 1e6:,.1f} of {total / 1e6:,.1f} MB"


class Lines:
    """Plain lines for a stage that takes a while: once it has run a second, and then at
    each further quarter of its way. A quick stage says nothing, so a log (or a one-line
    error) is not buried under steps that were over at once."""

    def __init__(self) -> None:
        self._stage: str | None = None
        self._said = -1  # the last quarter said, -1: nothing yet
        self._began = 0.0

    def update(
        self, stage: str, fraction: float, done_bytes: int | None = None, total: int | None = None
    ) -> None:
        fraction = min(1.0, max(0.0, fraction))
        if stage != self._stage:
            self._stage, self._said, self._began = stage, -1, time.monotonic()
        if time.monotonic() - self._began < 1.0:
            return
        quarter = int(fraction * 4)
        if quarter > self._said:
            self._said = quarter
            size = _bytes(done_bytes, total)
            say(f"companion: {stage} {fraction:.0%}" + (f" ({size})" if size else ""))

    def note(self, message: str) -> None:
        say(message)

    def close(self) -> None:
        pass


class Bar:
    """rich's progress bar on stderr; one row per stage, the last one live."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeRemainingColumn,
        )

        self._console = Console(stderr=True, highlight=False)
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[size]}"),
            TimeRemainingColumn(),
            console=self._console,
        )
        self._progress.start()
        self._task: Any = None
        self._stage: str | None = None

    def update(
        self, stage: str, fraction: float, done_bytes: int | None = None, total: int | None = None
    ) -> None:
        fraction = min(1.0, max(0.0, fraction))
        if stage != self._stage:
            if self._task is not None:  # the stage before is over
                self._progress.update(self._task, completed=100)
            self._stage = stage
            self._task = self._progress.add_task(stage, total=100, size="")
        self._progress.update(self._task, completed=fraction * 100, size=_bytes(done_bytes, total))

    def note(self, message: str) -> None:
        self._console.print(message, markup=False)  # above the bar, never through it

    def close(self) -> None:
        self._progress.stop()
