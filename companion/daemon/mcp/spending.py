"""What an agent may spend without asking: the user's limits (config.yaml's agents:, per
call, per session, per day; none set: every paid call asks), no spending at all
(COMPANION_NO_SPEND=1, agents.no_spend), and what agents spent, kept in COMPANION_HOME so
a day's limit holds across sessions and processes. The daemon's budgets hold besides."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from companion.settings.config import Settings
from companion.store import day_start

LEDGER = "agent-spend.jsonl"
Verdict = Literal["free", "within", "ask", "refused"]


@dataclass(frozen=True)
class Limits:
    per_call: int | None
    per_session: int | None
    per_day: int | None
    no_spend: bool

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(
            per_call=settings.agent_per_call,
            per_session=settings.agent_per_session,
            per_day=settings.agent_per_day,
            no_spend=settings.agent_no_spend,
        )

    @property
    def off(self) -> bool:
        """No limit set: every paid call asks."""
        return self.per_call is None and self.per_session is None and self.per_day is None


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    spends: int
    session_spent: int
    day_spent: int
    why: str  # said to the agent and, when asked, to the user


def decide(limits: Limits, spends: int, session_spent: int, day_spent: int) -> Decision:
    """Whether a call that spends `spends` goes ahead, asks the user, or is refused."""

    def said(verdict: Verdict, why: str) -> Decision:
        return Decision(verdict, spends, session_spent, day_spent, why)

    if spends <= 0:
        return said("free", "it spends nothing (made already, or a free re-cut)")
    if limits.no_spend:
        return said(
            "refused",
            "spending by agents is off (COMPANION_NO_SPEND, or agents.no_spend in "
            "config.yaml); nothing was spent",
        )
    if limits.off:
        return said("ask", "no agent limits are set, so every paid call asks")
    over = []
    if limits.per_call is not None and spends > limits.per_call:
        over.append(f"the per-call limit of {limits.per_call}")
    if limits.per_session is not None and session_spent + spends > limits.per_session:
        over.append(f"the session's limit of {limits.per_session} ({session_spent} spent)")
    if limits.per_day is not None and day_spent + spends > limits.per_day:
        over.append(f"the day's limit of {limits.per_day} ({day_spent} spent)")
    if over:
        return said("ask", "it is over " + " and ".join(over))
    return said("within", "within the agent limits")


class Spent:
    """What agents spent: per session in memory, per day in a ledger file (one JSON line
    a paid job, appended; a job counted once however often it is answered)."""

    def __init__(self, home: Path) -> None:
        self.path = home / LEDGER
        self._lock = threading.Lock()
        self._sessions: dict[str, int] = {}

    def session(self, key: str) -> int:
        return self._sessions.get(key, 0)

    def today(self) -> int:
        since = day_start()
        seen: dict[str, int] = {}
        try:
            lines = self.path.read_text().splitlines()
        except FileNotFoundError:
            return 0
        for line in lines:
            try:
                entry = json.loads(line)
                if str(entry["at"]) >= since:
                    seen[str(entry["job"])] = int(entry["credits"])
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a crash: not counted
        return sum(seen.values())

    def add(self, key: str, job: str, credits: int) -> None:
        if credits <= 0:
            return
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        line = json.dumps({"at": stamp, "job": job, "credits": credits}) + "\n"
        with self._lock:
            self._sessions[key] = self._sessions.get(key, 0) + credits
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # One short append: whole on POSIX, so two processes never interleave a line.
            descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                size = os.fstat(descriptor).st_size
                if size and os.pread(descriptor, 1, size - 1) != b"\n":
                    line = "\n" + line  # after a line a crash cut short: a line of its own
                os.write(descriptor, line.encode())
            finally:
                os.close(descriptor)
