"""Team mode end to end: job engines of several members against one sandbox account and
one real PostgreSQL server, including the database going away mid-run."""

from __future__ import annotations

# ruff: noqa: F811  (the cluster fixtures are imported by name)
import asyncio
from pathlib import Path
from typing import Any

import psycopg
import pytest

from companion.api.client import Client
from companion.api.pacing import Pacer
from companion.jobs.engine import Engine
from companion.sandbox import Limits, SandboxConfig, SandboxThread
from companion.store import Store
from companion.store.team import PostgresAccount
from tests.support.real_postgres import RealPostgres, real_postgres, team_db  # noqa: F401
from tests.support.team import animation_request, big_picture

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
REGISTERED = Limits(concurrency=1, queue=3, create_per_minute=3, other_per_minute=60)
WINDOW = 2.0  # the sandbox's and the members' rate window, compressed from 60 s


def sandbox_for(members: int, **overrides: Any) -> SandboxThread:
    config = SandboxConfig(
        api_keys=[f"studio:sk-member{n}" for n in range(members)],  # keys of one account
        limits=REGISTERED,
        task_seconds=0.2,
        rate_window=WINDOW,
        journal=True,
        credits=100_000,
        min_retry_after=1,
        **overrides,
    )
    return SandboxThread(config).start()


async def run_member(
    n: int,
    dsn: str,
    sandbox: SandboxThread,
    home: Path,
    picture: Path,
    jobs: int,
    results: dict[int, Any],
    started: asyncio.Event | None = None,
) -> None:
    store = Store(home / f"member{n}" / "companion.db")
    service = sandbox.base_url
    async with (
        Client(service, f"sk-member{n}", pacer=Pacer(window=WINDOW)) as client,
        PostgresAccount(
            dsn, store=store, service=service, member=f"member{n}@box", lease=5.0, poll=0.1
        ) as account,
    ):
        client.pacer.share(account)
        engine = Engine(store, client, service, account=account, timeout=120)
        for i in range(jobs):
            engine.submit(animation_request(picture), name=f"m{n}j{i}", target_dir=home / f"out{n}")
        if started is not None:
            started.set()
        done = await engine.drain()
        results[n] = {
            "states": [j.state for j in done],
            "books": await engine.reconcile(),
        }
    store.close()


def creates(sandbox: SandboxThread) -> int:
    journal = sandbox.service.journal
    assert journal is not None
    return sum(
        1
        for e in journal.entries
        if e.method == "POST"
        and e.path in ("/v1/animations", "/v1/video-generations")
        and e.status == 202
    )


def refusals(sandbox: SandboxThread) -> list[str | None]:
    journal = sandbox.service.journal
    assert journal is not None
    return [e.error_code for e in journal.entries if e.status == 429]


def test_members_share_windows_slots_budget_and_uploads(team_db: str, tmp_path: Path):
    picture = big_picture(tmp_path / "hero.png")
    sandbox = sandbox_for(10)
    try:

        async def scenario() -> dict[int, Any]:
            async with PostgresAccount(
                team_db, store=Store(tmp_path / "admin.db"), service=sandbox.base_url
            ) as admin:
                quote_each = 0
                await admin.set_budget("*", None, None)
                results: dict[int, Any] = {}
                # A first job tells the price; the budget then leaves room for 6 more of 9.
                await run_member(9, team_db, sandbox, tmp_path, picture, 1, results)
                quote_each = (await admin.status())["budget"]["spent_today"]
                await admin.set_budget("*", quote_each * 7, None)
                async with Client(sandbox.base_url, "sk-member0") as client:
                    balance = (await client.get_credit_balance()).available
                    await admin.reconcile(balance)
                    await asyncio.gather(
                        *(run_member(n, team_db, sandbox, tmp_path, picture, 3, results)
                          for n in range(3))
                    )  # fmt: skip
                    balance = (await client.get_credit_balance()).available
                    results[-2] = await admin.reconcile(balance)
                results[-1] = await admin.status()
                return results

        results = asyncio.run(scenario())
    finally:
        sandbox.stop()
    states = [s for n in range(3) for s in results[n]["states"]]
    assert states.count("done") == 6 and states.count("awaiting_approval") == 3
    assert refusals(sandbox) == []  # neither RATE_LIMITED nor QUEUE_LIMIT_EXCEEDED
    journal = sandbox.service.journal
    assert journal is not None
    uploads = [e for e in journal.entries if e.path == "/v1/files" and e.status == 201]
    assert len(uploads) == 1  # one picture, one upload, for every member
    status = results[-1]
    assert status["budget"]["spent_today"] <= status["budget"]["per_day"]
    assert creates(sandbox) == 7
    # The team's books agree with the account's balance, reconciled once for the team.
    assert results[-2]["drift"] == 0
    assert status["drift"] == 0


def test_the_database_stopping_mid_run_pauses_creates_and_then_resumes(
    team_db: str, real_postgres: RealPostgres, tmp_path: Path
):
    picture = big_picture(tmp_path / "hero.png")
    sandbox = sandbox_for(1)
    jobs = 6
    seen: dict[str, int] = {}
    try:

        async def scenario() -> dict[int, Any]:
            results: dict[int, Any] = {}
            member = asyncio.create_task(
                run_member(0, team_db, sandbox, tmp_path, picture, jobs, results)
            )
            while creates(sandbox) < 2:  # mid-run: some tasks created, more to come
                await asyncio.sleep(0.05)
            await asyncio.to_thread(real_postgres.stop)
            # A create on the wire, or given its room in the window before, may still land
            # (room is booked at most a window and its margin ahead).
            await asyncio.sleep(WINDOW + 0.5)
            seen["down"] = creates(sandbox)
            await asyncio.sleep(3.0)
            seen["before_restart"] = creates(sandbox)
            await asyncio.to_thread(real_postgres.start)
            await asyncio.wait_for(member, 180)
            return results

        results = asyncio.run(scenario())
    finally:
        sandbox.stop()
        if not _running(real_postgres):
            real_postgres.start()
    assert seen["before_restart"] == seen["down"]  # no create without the database
    assert results[0]["states"] == ["done"] * jobs
    assert creates(sandbox) == jobs  # resumed, and nothing paid twice
    with psycopg.connect(team_db, autocommit=True) as conn:
        holds = conn.execute(
            b"SELECT count(*), count(DISTINCT job_id) FROM companion.ledger WHERE entry = 'hold'"
        ).fetchone()
        left = conn.execute(
            b"SELECT (SELECT count(*) FROM companion.slots), "
            b"(SELECT count(*) FROM companion.reservations)"
        ).fetchone()
    assert holds == (jobs, jobs)
    assert left == (0, 0)


def _running(server: RealPostgres) -> bool:
    try:
        psycopg.connect(server.dsn(), connect_timeout=2).close()
    except psycopg.OperationalError:
        return False
    return True


def test_no_create_goes_out_once_its_reservation_is_gone_and_the_budget_full(
    team_db: str, tmp_path: Path
):
    picture = big_picture(tmp_path / "hero.png")
    sandbox = sandbox_for(1)
    try:

        async def scenario() -> str:
            store = Store(tmp_path / "companion.db")
            service = sandbox.base_url
            async with (
                Client(service, "sk-member0", pacer=Pacer(window=WINDOW)) as client,
                PostgresAccount(
                    team_db, store=store, service=service, member="ana@desk", lease=5.0
                ) as account,
            ):
                client.pacer.share(account)
                engine = Engine(store, client, service, account=account)
                job = engine.submit(animation_request(picture), name="j", target_dir=tmp_path)
                job = await engine._step(job)  # quoted
                job = await engine._step(job)  # creating: reserved, key and body on disk
                assert job.state == "creating"
                # The companion was away past its lease, and the team spent the budget.
                with psycopg.connect(team_db, autocommit=True) as conn:
                    conn.execute(b"DELETE FROM companion.reservations")
                await account.set_budget("*", 0, None)
                job = await engine.run(job.id)
            store.close()
            return f"{job.state}: {job.error}"

        outcome = asyncio.run(scenario())
    finally:
        sandbox.stop()
    assert (
        outcome == "failed: no room left in the team's per-day budget; retry the job when there is"
    )
    assert creates(sandbox) == 0
