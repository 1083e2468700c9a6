"""Slots at the service (concurrency + queue tasks across the team), each on a lease,
served by priority, then members in turn, then age (migration 2's slot_head).

A member whose job heads the queue is woken by NOTIFY on a direct connection it keeps
listening on; through a transaction-pooling PgBouncer (`pooled`), where LISTEN does not
survive, a member with jobs waiting asks every `turn` seconds instead (one read, no
lock), and a member with nothing waiting asks nothing. Waiting jobs re-ask unwoken every
`recheck` seconds, for leases that ran out."""

from __future__ import annotations

import asyncio
import contextlib

import psycopg

from companion.store.errors import TeamUnavailable
from companion.store.team.database import TeamDatabase

RECHECK = 5.0  # seconds a waiting job re-asks for a slot even unwoken (expired leases)
TURN = 0.5  # seconds between two asks for a slot turn, behind a pooler (no NOTIFY)


class SlotQueue:
    def __init__(
        self,
        db: TeamDatabase,
        member: str,
        *,
        lease: float,
        recheck: float = RECHECK,
        pooled: bool = False,
        turn: float = TURN,
    ) -> None:
        self.db = db
        self.member = member
        self.lease = lease
        self.recheck = recheck
        self.pooled = pooled
        self.turn = turn
        self.capacity: int | None = None  # concurrency + queue, once the limits are read
        self._wake = asyncio.Event()  # set when this member's job heads the queue
        self._waiting = 0  # this member's jobs waiting for a slot
        self._someone_waits = asyncio.Event()  # set while _waiting > 0 (pooled turns)
        self._listener: asyncio.Task[None] | None = None

    def start(self) -> None:
        listen = self._turns() if self.pooled else self._listen()
        self._listener = asyncio.create_task(listen, name="companion-team-listener")

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener

    async def acquire(self, job_id: str, priority: int, *, present: bool = False) -> None:
        if self.capacity is None and not present:
            raise TeamUnavailable("the account's limits are not known yet; read them first")
        self._waiting += 1
        self._someone_waits.set()
        try:
            while True:
                wake = self._wake  # taken before asking: a wake-up in between is kept
                if await self.db.value(
                    "acquire_slot",
                    member=self.member,
                    job=job_id,
                    priority=priority,
                    capacity=self.capacity or 0,
                    lease=self.lease,
                    present=present,
                ):
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), self.recheck)
        except asyncio.CancelledError:
            with contextlib.suppress(RuntimeError):
                self.db.later("release_slot", member=self.member, job=job_id)
            raise
        finally:
            self._waiting -= 1
            if not self._waiting:
                self._someone_waits.clear()

    async def release(self, job_id: str) -> None:
        await self.db.run("release_slot", member=self.member, job=job_id)

    async def _listen(self) -> None:
        """Wake this member's waiting jobs when the database says one heads the queue."""
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self.db.dsn, autocommit=True, connect_timeout=5
                ) as conn:
                    await conn.execute("LISTEN companion_slots")
                    self._wake_waiters()  # anything missed while not listening
                    async for note in conn.notifies():
                        if note.payload == self.member:
                            self._wake_waiters()
            except psycopg.Error:
                pass  # the database is away; waiters re-ask on their own meanwhile
            await asyncio.sleep(1.0)

    async def _turns(self) -> None:
        """Behind a pooler: while jobs of this member wait, ask whether one's turn came."""
        while True:
            await self._someone_waits.wait()
            await asyncio.sleep(self.turn)
            if not self._waiting:
                continue
            with contextlib.suppress(TeamUnavailable):
                if await self.db.value("slot_turn", member=self.member, capacity=self.capacity):
                    self._wake_waiters()

    def _wake_waiters(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()
