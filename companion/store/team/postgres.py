"""The team's shared account state in PostgreSQL (see companion.store.account).

Every lease, window and day boundary is computed by the database with clock_timestamp(),
so members whose clocks disagree still agree. Each operation is one statement calling a
function of the migrations (one round trip); the functions serialise on
transaction-scoped advisory locks, one per shared resource. Members renew the leases of
what they hold with a heartbeat; a member that stops (killed, unplugged) loses its slots,
reservations and upload claims when the lease runs out.

Through a transaction-pooling PgBouncer (`pooled`), a session is not kept between
transactions: no prepared statements are made, and instead of LISTEN a member with jobs
waiting for a slot asks every TURN seconds (one read, no lock) whether one of them heads
the queue with a slot free. A member with nothing waiting asks nothing."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import logging
import socket
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from companion.api.schema import AccountLimits
from companion.store.account import LocalAccount, TeamUnavailable
from companion.store.db import Store
from companion.store.team.migrate import migrate
from companion.store.team.sql import queries

log = logging.getLogger("companion.team")

LEASE = 60.0  # seconds a slot, reservation or upload claim outlives its member's silence
POLL = 0.5  # seconds between two asks for another member's upload
RECHECK = 5.0  # seconds a waiting job re-asks for a slot even unwoken (expired leases)
MARGIN = 0.25  # seconds added to every window wait, for transit jitter
RECENT = 300.0  # members seen within this many seconds are listed by status
TURN = 0.5  # seconds between two asks for a slot turn, behind a pooler (no NOTIFY)


def default_member() -> str:
    return f"{getpass.getuser()}@{socket.gethostname()}"


def describe(dsn: str) -> str:
    """Where the database is, for messages: never the password."""
    try:
        parts = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "the team database (its connection string is not valid)"
    host = parts.get("host") or "localhost"
    port = parts.get("port") or "5432"
    where = f"{host}:{port}" if not str(host).startswith("/") else f"socket {host}"
    return f"{parts.get('dbname') or parts.get('user') or 'postgres'} at {where}"


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
        self.poll = poll
        self.recheck = recheck
        self.where = describe(dsn)
        self.capacity: int | None = None
        self.pooled = pooled
        self.turn = turn
        self._dsn = dsn
        # A prepared statement lives in a server session, which a transaction pooler
        # hands to another client after each transaction: none are made there.
        self._connect: dict[str, Any] = {"autocommit": True}
        if pooled:
            self._connect["prepare_threshold"] = None
        self._pool = AsyncConnectionPool(
            dsn,
            min_size=1,
            max_size=4,
            open=False,
            timeout=connect_timeout,
            kwargs={**self._connect, "connect_timeout": max(1, int(connect_timeout))},
            name="companion-team",
        )
        self._beat: asyncio.Task[None] | None = None
        self._listener: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()  # set when this member's job heads the slot queue
        self._waiting = 0  # this member's jobs waiting for a slot
        self._someone_waits = asyncio.Event()  # set while _waiting > 0 (pooled turns)
        self._pending: set[asyncio.Task[Any]] = set()
        self._down = False
        self._uploading: dict[str, asyncio.Event] = {}  # pictures this companion uploads
        self._answers: list[int] = []  # window hits answered, not yet told to the team
        self._answering: asyncio.Task[None] | None = None

    # -- lifecycle -----------------------------------------------------------------------

    async def open(self, *, join: bool = True) -> PostgresAccount:
        """Connect and migrate; `join` makes this companion a member (heartbeats)."""
        try:
            # One direct connection first: it fails fast, with the server's reason.
            async with await psycopg.AsyncConnection.connect(
                self._dsn, **self._connect, connect_timeout=max(1, int(self._pool.timeout))
            ) as conn:
                await migrate(conn)
            await self._pool.open(wait=True, timeout=self._pool.timeout)
        except (psycopg.Error, PoolTimeout) as exc:
            await self._pool.close()
            raise TeamUnavailable(
                f"cannot open {self.where} for team mode ({_reason(exc)}); check team.database "
                "in config.yaml or COMPANION_TEAM_DATABASE"
            ) from exc
        if not join:
            return self
        await self._run("heartbeat", member=self.member, lease=self.lease)
        self._beat = asyncio.create_task(self._heartbeat(), name="companion-team-heartbeat")
        listen = self._turns() if self.pooled else self._listen()
        self._listener = asyncio.create_task(listen, name="companion-team-listener")
        log.info("team mode: member %s on %s", self.member, self.where)
        return self

    async def close(self) -> None:
        for task in (self._beat, self._listener):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for task in list(self._pending):
            with contextlib.suppress(Exception):
                await task
        await self._pool.close()

    async def __aenter__(self) -> PostgresAccount:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.lease / 3)
            with contextlib.suppress(TeamUnavailable):
                await self._run("heartbeat", member=self.member, lease=self.lease)

    async def _listen(self) -> None:
        """Wake this member's waiting jobs when the database says one heads the queue."""
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self._dsn, autocommit=True, connect_timeout=5
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
                if await self._value("slot_turn", member=self.member, capacity=self.capacity):
                    self._wake_waiters()

    def _wake_waiters(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()

    # -- one round trip each -------------------------------------------------------------

    async def _fetch(self, name: str, **params: Any) -> list[dict[str, Any]]:
        query = queries()[name]
        for attempt in (1, 2):
            try:
                async with self._pool.connection() as conn:
                    cursor = conn.cursor(row_factory=dict_row)
                    await cursor.execute(query.encode(), params)
                    rows = await cursor.fetchall() if cursor.description else []
            except psycopg.OperationalError as exc:
                # A connection broken by a restart is dropped by the pool: try once more
                # (every operation is safe to repeat).
                if attempt == 1:
                    continue
                raise self._unavailable(exc) from exc
            except PoolTimeout as exc:
                raise self._unavailable(exc) from exc
            if self._down:
                self._down = False
                log.warning("team database %s is reachable again", self.where)
            return rows
        raise AssertionError("unreachable")

    async def _run(self, name: str, **params: Any) -> None:
        await self._fetch(name, **params)

    async def _value(self, name: str, **params: Any) -> Any:
        rows = await self._fetch(name, **params)
        return next(iter(rows[0].values())) if rows else None

    def _unavailable(self, exc: Exception) -> TeamUnavailable:
        if not self._down:
            self._down = True
            log.warning("team database %s is unreachable (%s); waiting", self.where, _reason(exc))
        return TeamUnavailable(f"the team database {self.where} is unreachable")

    def _later(self, name: str, **params: Any) -> None:
        task = asyncio.get_running_loop().create_task(self._fetch(name, **params))
        self._pending.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._pending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.info("team update deferred: %s", task.exception())

    # -- windows and holds ---------------------------------------------------------------

    def configure(self, limits: AccountLimits, window: float) -> None:
        self.capacity = limits.concurrency + limits.queue
        with contextlib.suppress(RuntimeError):  # outside a loop: nobody to tell yet
            self._later(
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
        rows = await self._fetch(
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
        if self._answering is None or self._answering.done():
            with contextlib.suppress(RuntimeError):  # outside a loop: nobody to tell
                task = asyncio.get_running_loop().create_task(self._tell_answers())
                self._answering = task
                self._pending.add(task)
                task.add_done_callback(self._done)

    async def _tell_answers(self) -> None:
        while self._answers:
            hits, self._answers = self._answers, []
            await self._run("answered", hits=hits)

    async def hold(self, seconds: float) -> None:
        await self._run("hold_for", member=self.member, seconds=seconds)

    # -- slots ---------------------------------------------------------------------------

    async def acquire_slot(self, job_id: str, priority: int, *, present: bool = False) -> None:
        if self.capacity is None and not present:
            raise TeamUnavailable("the account's limits are not known yet; read them first")
        self._waiting += 1
        self._someone_waits.set()
        try:
            while True:
                wake = self._wake  # taken before asking: a wake-up in between is kept
                if await self._value(
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
                self._later("release_slot", member=self.member, job=job_id)
            raise
        finally:
            self._waiting -= 1
            if not self._waiting:
                self._someone_waits.clear()

    async def release_slot(self, job_id: str) -> None:
        await self._run("release_slot", member=self.member, job=job_id)

    # -- budgets and the ledger ----------------------------------------------------------

    async def reserve(self, job_id: str, credits: int, *, approved: bool) -> str | None:
        refused = await self._value(
            "reserve",
            member=self.member,
            job=job_id,
            credits=credits,
            lease=self.lease,
            forced=approved,
        )
        return None if refused is None else str(refused)

    async def forget(self, job_id: str) -> None:
        await self._run("forget", member=self.member, job=job_id)

    async def record(self, job_id: str | None, entry: str, credits: int) -> None:
        await self._run("record", member=self.member, job=job_id, entry=entry, credits=credits)
        await self.local.record(job_id, entry, credits)

    async def settle(self, job_id: str, charged: int, refunded: int, released: int) -> None:
        await self._run(
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
        rows = await self._fetch("snapshot", member=self.member, available=available)
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
        await self._run("set_budget", scope=scope, per_day=per_day, per_month=per_month)

    # -- uploads -------------------------------------------------------------------------

    async def upload_for(self, sha256: str, *, claim: bool) -> str | None:
        while True:
            while sha256 in self._uploading:  # a job of this companion is uploading it
                await self._uploading[sha256].wait()
            known = self.local.store.upload_for(self.service, sha256)
            if known is not None:
                return known
            if not claim:
                found = await self._value("known_upload", service=self.service, sha256=sha256)
            else:
                rows = await self._fetch(
                    "claim_upload",
                    service=self.service,
                    sha256=sha256,
                    member=self.member,
                    lease=self.lease,
                )
                found = rows[0]["file_id"]
                if found is None and rows[0]["claimed"]:
                    if sha256 in self._uploading:
                        continue  # another job of ours claimed it meanwhile: wait for it
                    self._uploading[sha256] = asyncio.Event()
                    return None
                if found is None:
                    await asyncio.sleep(self.poll)  # another member is uploading it
                    continue
            if found is not None:
                self.local.store.remember_upload(self.service, sha256, str(found))
                return str(found)
            return None

    async def remember_upload(self, sha256: str, file_id: str) -> None:
        await self._run(
            "remember_upload",
            service=self.service,
            sha256=sha256,
            file_id=file_id,
            member=self.member,
        )
        self.local.store.remember_upload(self.service, sha256, file_id)
        self._claim_done(sha256)

    async def drop_claim(self, sha256: str) -> None:
        try:
            await self._run("drop_claim", service=self.service, sha256=sha256, member=self.member)
        finally:
            self._claim_done(sha256)

    def _claim_done(self, sha256: str) -> None:
        event = self._uploading.pop(sha256, None)
        if event is not None:
            event.set()

    # -- status --------------------------------------------------------------------------

    async def status(self) -> dict[str, Any]:
        members = await self._fetch("status_members", recent=RECENT)
        account = (await self._fetch("status_account"))[0]
        drift = await self._fetch("status_drift")
        return {
            "team": True,
            "member": self.member,
            "database": self.where,
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
        return await self._fetch("ledger")


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
