"""Team mode through a real PgBouncer in transaction mode: no prepared statement outlives
its transaction, and jobs waiting for a slot are woken by asking for their turn through
the pooler (LISTEN does not survive transaction pooling), on a few server connections."""

from __future__ import annotations

# ruff: noqa: F811  (the cluster fixtures are imported by name)
import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from companion.api.schema import AccountLimits
from companion.store import Store
from companion.store.team import PostgresAccount
from tests.support.real_chromium import unavailable
from tests.support.real_pgbouncer import PGBOUNCER, RealPgBouncer
from tests.support.real_postgres import RealPostgres, real_postgres, team_db  # noqa: F401

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
SERVICE = "http://sandbox.test/v1"
POOL = 2  # server connections: few, so every member's transactions change sessions


@pytest.fixture(scope="module")
def pgbouncer(real_postgres: RealPostgres) -> Iterator[RealPgBouncer]:
    if PGBOUNCER is None:
        unavailable("pgbouncer is not installed (.ci/run installs Debian's pgbouncer)")
    root = Path(tempfile.mkdtemp(prefix="companion-pgbouncer-"))
    bouncer = RealPgBouncer(real_postgres, root, pool_size=POOL).start()
    try:
        yield bouncer
    finally:
        bouncer.stop()
        shutil.rmtree(root, ignore_errors=True)


def test_members_share_slots_through_a_transaction_pooler(
    pgbouncer: RealPgBouncer, team_db: str, tmp_path: Path
) -> None:
    pooled = pgbouncer.dsn(team_db)
    held: set[str] = set()
    most = 0
    done: list[str] = []
    servers: list[int] = []

    async def scenario() -> None:
        nonlocal most
        async with AsyncExitStack() as stack:
            team = []
            for n in range(3):
                store = Store(tmp_path / f"m{n}" / "companion.db")
                stack.callback(store.close)
                # Never re-asking on its own within the test: only a turn wakes a waiter.
                account = PostgresAccount(
                    pooled, store=store, service=SERVICE, member=f"artist{n}@host{n}",
                    pooled=True, recheck=3600, turn=0.05,
                )  # fmt: skip
                await stack.enter_async_context(account)
                account.configure(
                    AccountLimits(concurrency=1, queue=1, create_per_minute=3, other_per_minute=60),
                    60.0,
                )
                team.append(account)

            async def job(member: PostgresAccount, name: str) -> None:
                nonlocal most
                await member.acquire_slot(name, 1)
                held.add(name)
                most = max(most, len(held))
                _, ticket = await member.take_room("other", 1000, 60.0)  # the same query again
                member.answered(ticket)
                await asyncio.sleep(0.02)
                held.discard(name)
                await member.release_slot(name)
                done.append(name)

            jobs = [job(m, f"{m.member}-{n}") for m in team for n in range(5)]
            await asyncio.wait_for(asyncio.gather(*jobs), 120)  # a hang guard, no timing
            servers.extend(
                int(p["sv_active"]) + int(p["sv_idle"]) + int(p["sv_used"])
                for p in pgbouncer.pools()
                if p["database"] == team_db.rsplit("=", 1)[1]
            )

    asyncio.run(scenario())
    assert len(done) == 15
    assert most == 2  # concurrency + queue, never more
    assert servers and max(servers) <= POOL
