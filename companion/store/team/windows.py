"""The account's request windows and 429 holds, kept for the whole team.

The service counts a request when it arrives, which on a busy machine or a slow network
can be well after the team gave it room; so each request's room is reported answered
once its answer came back, and the team counts it from then (see migration 3)."""

from __future__ import annotations

import asyncio
import contextlib

from companion.api.schema import AccountLimits
from companion.store.team.database import TeamDatabase

MARGIN = 0.25  # seconds added to every window wait, for transit jitter


class TeamWindows:
    def __init__(self, db: TeamDatabase, member: str, lease: float) -> None:
        self.db = db
        self.member = member
        self.lease = lease  # also how late an unanswered request may still arrive
        self._answers: list[int] = []  # hits answered, not yet told to the team
        self._telling: asyncio.Task[None] | None = None

    def configure(self, limits: AccountLimits, window: float) -> None:
        with contextlib.suppress(RuntimeError):  # outside a loop: nobody to tell yet
            self.db.later(
                "configure",
                concurrency=limits.concurrency,
                queue=limits.queue,
                create_per_minute=limits.create_per_minute,
                other_per_minute=limits.other_per_minute,
                window=window,
            )

    async def take_room(
        self, kind: str, limit: int | None, window: float
    ) -> tuple[float, object | None]:
        rows = await self.db.fetch(
            "take_room",
            member=self.member,
            kind=kind,
            limit=limit,
            window=window,
            margin=MARGIN,
            flight=self.lease,
        )
        return float(rows[0]["wait"]), rows[0]["hit"]

    def answered(self, ticket: object) -> None:
        """Tell the team (soon, many answers in one statement) that the request given
        this hit was answered; an answer that cannot be told leaves the hit counting as
        made now, until its lease."""
        assert isinstance(ticket, int)
        self._answers.append(ticket)
        if self._telling is None or self._telling.done():
            with contextlib.suppress(RuntimeError):  # outside a loop: nobody to tell
                self._telling = self.db.background(self._tell())

    async def _tell(self) -> None:
        while self._answers:
            hits, self._answers = self._answers, []
            await self.db.run("answered", hits=hits)

    async def hold(self, seconds: float) -> None:
        await self.db.run("hold_for", member=self.member, seconds=seconds)
