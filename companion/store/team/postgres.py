"""The team's shared account state in PostgreSQL (see companion.store.account).

Every lease, window and day boundary is computed by the database with clock_timestamp(),
so members whose clocks disagree still agree. Each operation is one statement calling a
function of the migrations (one round trip); the functions serialise on
transaction-scoped advisory locks, one per shared resource. Members renew the leases of
what they hold with a heartbeat; a member that stops (killed, unplugged) loses its slots,
reservations and upload claims when the lease runs out.

This class puts the parts together and keeps the books: the connection and queries
(database.py), the request windows (windows.py), the slots (slots.py) and the uploads
(uploads.py)."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import logging
import socket
from typing import Any

from companion.api.schema import AccountLimits
from companion.store.account import LocalAccount
from companion.store.db import Store
from companion.store.errors import TeamUnavailable
from companion.store.team.database import TeamDatabase
from companion.store.team.slots import RECHECK, TURN, SlotQueue
from companion.store.team.uploads import POLL, TeamUploads
from companion.store.team.windows import TeamWindows

log = logging.getLogger("companion.team")

LEASE = 60.0  # seconds a slot, reservation or upload claim outlives its member's silence
RECENT = 300.0  # members seen within this many seconds are listed by status


def default_member() -> str:
    return f"{getpass.getuser()}@{socket.gethostname()}"


class PostgresAccount:
    shared = True

    def __init__(
        self,
        dsn: str,
        *,
        store: Store,
        service: str,
        member: str | None = None,
        lease: float = LEASE,
        poll: float = POLL,
        recheck: float = RECHECK,
        connect_timeout: float = 5.0,
        pooled: bool = False,
        turn: float = TURN,
    ) -> None:
        self.member = member or default_member()
        self.service = service
        self.local = LocalAccount(store, service, self.member)
        self.lease = lease
        self.db = TeamDatabase(dsn, connect_timeout=connect_timeout, pooled=pooled)
        self.where = self.db.where
        self.windows = TeamWindows(self.db, self.member, lease)
        self.slots = SlotQueue(
            self.db, self.member, lease=lease, recheck=recheck, pooled=pooled, turn=turn
        )
        self.uploads = TeamUploads(self.db, store, service, self.member, lease=lease, poll=poll)
        self._beat: asyncio.Task[None] | None = None

    # -- lifecycle -----------------------------------------------------------------------

    async def open(self, *, join: bool = True) -> PostgresAccount:
        """Connect and migrate; `join` makes this companion a member (heartbeats)."""
        await self.db.open()
        if not join:
            return self
        await self.db.run("heartbeat", member=self.member, lease=self.lease)
        self._beat = asyncio.create_task(self._heartbeat(), name="companion-team-heartbeat")
        self.slots.start()
        log.info("team mode: member %s on %s", self.member, self.where)
        return self

    async def close(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beat
        await self.slots.stop()
        await self.db.close()

    async def __aenter__(self) -> PostgresAccount:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.lease / 3)
            with contextlib.suppress(TeamUnavailable):
                await self.db.run("heartbeat", member=self.member, lease=self.lease)

    # -- windows and holds (for the client's pacer) --------------------------------------

    def configure(self, limits: AccountLimits, window: float) -> None:
        self.slots.capacity = limits.concurrency + limits.queue
        self.windows.configure(limits, window)

    async def take_room(
        self, kind: str, limit: int | None, window: float
    ) -> tuple[float, object | None]:
        return await self.windows.take_room(kind, limit, window)

    def answered(self, ticket: object) -> None:
        self.windows.answered(ticket)

    async def hold(self, seconds: float) -> None:
        await self.windows.hold(seconds)

    # -- slots ---------------------------------------------------------------------------

    async def acquire_slot(self, job_id: str, priority: int, *, present: bool = False) -> None:
        await self.slots.acquire(job_id, priority, present=present)

    async def release_slot(self, job_id: str) -> None:
        await self.slots.release(job_id)

    # -- budgets and the ledger ----------------------------------------------------------

    async def reserve(self, job_id: str, credits: int, *, approved: bool) -> str | None:
        refused = await self.db.value(
            "reserve",
            member=self.member,
            job=job_id,
            credits=credits,
            lease=self.lease,
            forced=approved,
        )
        return None if refused is None else str(refused)

    async def forget(self, job_id: str) -> None:
        await self.db.run("forget", member=self.member, job=job_id)

    async def record(self, job_id: str | None, entry: str, credits: int) -> None:
        await self.db.run("record", member=self.member, job=job_id, entry=entry, credits=credits)
        await self.local.record(job_id, entry, credits)

    async def settle(self, job_id: str, charged: int, refunded: int, released: int) -> None:
        await self.db.run(
            "settle",
            member=self.member,
            job=job_id,
            charged=charged,
            refunded=refunded,
            released=released,
        )
        await self.local.settle(job_id, charged, refunded, released)

    async def reconcile(self, available: int) -> dict[str, int | None]:
        """Once for the team: the whole team's books against the account's balance."""
        rows = await self.db.fetch("snapshot", member=self.member, available=available)
        row = rows[0]
        committed = int(row["committed"])
        drift = None
        if row["previous_available"] is not None:
            drift = (available + committed) - (
                int(row["previous_available"]) + int(row["previous_committed"])
            )
        return {"available": available, "committed": committed, "drift": drift}

    async def set_budget(self, scope: str, per_day: int | None, per_month: int | None) -> None:
        """scope '*' is the team, any other a member."""
        await self.db.run("set_budget", scope=scope, per_day=per_day, per_month=per_month)

    # -- uploads -------------------------------------------------------------------------

    async def upload_for(self, owner: str, sha256: str, *, claim: bool) -> str | None:
        return await self.uploads.upload_for(owner, sha256, claim=claim)

    async def remember_upload(self, owner: str, sha256: str, file_id: str) -> None:
        await self.uploads.remember(owner, sha256, file_id)

    async def drop_claim(self, owner: str, sha256: str) -> None:
        await self.uploads.drop_claim(owner, sha256)

    async def forget_upload(self, owner: str, sha256: str, file_id: str) -> None:
        await self.uploads.forget(owner, sha256, file_id)

    # -- status --------------------------------------------------------------------------

    async def status(self) -> dict[str, Any]:
        members = await self.db.fetch("status_members", recent=RECENT)
        account = (await self.db.fetch("status_account"))[0]
        drift = await self.db.fetch("status_drift")
        return {
            "team": True,
            "member": self.member,
            "database": self.db.where,
            "members": [
                {
                    "name": m["name"],
                    "seen_seconds_ago": round(float(m["seen_ago"]), 1),
                    "slots": int(m["slots"]),
                    "spent_today": int(m["spent_today"]),
                }
                for m in members
            ],
            "slots": {
                "in_use": int(account["slots_in_use"]),
                "total": account["slots_total"],
                "waiting": int(account["waiting"]),
            },
            "window": {
                "seconds": account["window_seconds"],
                "creates": int(account["creates_in_window"]),
                "creates_limit": account["create_per_minute"],
                "others": int(account["others_in_window"]),
                "others_limit": account["other_per_minute"],
                "hold_seconds": round(float(account["hold_seconds"] or 0), 1),
            },
            "budget": {
                "spent_today": int(account["spent_today"]),
                "per_day": account["team_per_day"],
                "per_month": account["team_per_month"],
            },
            "drift": None if not drift or drift[0]["drift"] is None else int(drift[0]["drift"]),
        }

    async def ledger(self) -> list[dict[str, Any]]:
        return await self.db.fetch("ledger")
