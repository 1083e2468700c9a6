"""When a file in a watched inbox has held still long enough to be taken.

A file is settled once its size and mtime have not changed for its quiet spell. The
watcher looks at its candidates only when something can have happened: a filesystem
event about one of them, or the moment the quiet spell of one of them ends (a timer set
for that file). With nothing waiting, it waits on nothing, so an idle daemon watching any
number of inboxes does not wake up.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path

ATTEMPTS = 3  # looks at a file that does not decode before it is declared failed
MAX_GRACE = 30.0  # the longest quiet spell waited for between two looks

Mark = tuple[int, float]  # size and mtime


@dataclass
class Candidate:
    size: int = -1
    mtime: float = -1.0
    since: float = field(default_factory=time.monotonic)  # quiet since
    changed: float = field(default_factory=time.monotonic)  # last seen to change
    gap: float = 0.0  # the longest pause seen between two changes: the writer's pace
    grew: bool = False
    attempts: int = 0
    events: int = 0  # events noticed about it: tells a look whether one came meanwhile

    def quiet_needed(self, stable: float) -> float:
        needed = stable * float(2**self.attempts)
        if self.grew:  # a slow writer: wait out a good margin over its pauses
            needed = max(needed, 2 * self.gap)
        return min(needed, MAX_GRACE)

    @property
    def looked_at(self) -> bool:
        return self.size >= 0


class Settling:
    """The candidates of one inbox, and when they are next worth a look.

    Lives on the event loop: `notice` is called there for each event (and for what the
    start-up scan finds), `wait` returns when a look is due."""

    def __init__(self, stable_seconds: float) -> None:
        self.stable_seconds = stable_seconds
        self._candidates: dict[Path, Candidate] = {}
        self._nudged = asyncio.Event()

    def notice(self, path: Path) -> None:
        """Something happened to path (or it was found at start-up): look at it soon."""
        self._candidates.setdefault(path, Candidate()).events += 1
        self._nudged.set()

    def nudge(self) -> None:
        """Wake the waiter without a file: to stop, or for work queued beside the files."""
        self._nudged.set()

    def paths(self) -> list[tuple[Path, int]]:
        """The candidates, each with the count of events noticed about it so far; a look
        hands that count back to `settled`."""
        return [(path, seen.events) for path, seen in self._candidates.items()]

    def get(self, path: Path) -> Candidate | None:
        return self._candidates.get(path)

    def forget(self, path: Path) -> None:
        self._candidates.pop(path, None)

    def due_in(self, now: float) -> float | None:
        """Seconds until the next quiet spell ends; 0 when a file was never looked at;
        None when nothing waits (then only an event can make a look worthwhile)."""
        due: float | None = None
        for seen in self._candidates.values():
            if not seen.looked_at:
                return 0.0
            left = seen.since + seen.quiet_needed(self.stable_seconds) - now
            due = left if due is None else min(due, left)
        return None if due is None else max(0.0, due)

    async def wait(self) -> None:
        """Until an event arrives or a candidate's quiet spell ends, whichever is first."""
        timeout = self.due_in(time.monotonic())
        if timeout is None:
            await self._nudged.wait()
        elif timeout > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._nudged.wait(), timeout)
        # Cleared before the look: an event arriving during it makes the next wait short.
        self._nudged.clear()

    def settled(self, path: Path, mark: Mark | None, now: float, events: int) -> bool:
        """Record what a look at path found (`events`: the count `paths` gave when the
        look began); True when it has held still long enough to be probed. A file gone
        (mark None) is forgotten, unless an event about it came while the look ran: then
        a new file of that name may have arrived after it looked (the same name dropped
        again once the first was taken), and it is looked at again at once."""
        seen = self._candidates.get(path)
        if seen is None:
            return False
        if mark is None:
            if seen.events == events:
                del self._candidates[path]  # renamed away (a temp file) or removed
            else:
                self._candidates[path] = Candidate(events=seen.events)
            return False
        if mark != (seen.size, seen.mtime):
            if seen.looked_at:  # it changed while watched: a writer is at work
                seen.grew = True
                seen.gap = max(seen.gap, now - seen.changed)
            seen.size, seen.mtime = mark
            seen.since = seen.changed = now
            return False
        return now - seen.since >= seen.quiet_needed(self.stable_seconds)

    def unchanged_since(self, path: Path, events: int) -> bool:
        """No event about path came since the look that counted `events` began."""
        seen = self._candidates.get(path)
        return seen is not None and seen.events == events

    def look_again(self, path: Path, now: float) -> bool:
        """The probe found path incomplete: True to wait a longer quiet spell and look
        again, False when its attempts are spent (take it, and let it fail)."""
        seen = self._candidates.get(path)
        if seen is None:
            return False
        seen.attempts += 1
        if seen.attempts < ATTEMPTS:
            seen.since = now
            return True
        return False
