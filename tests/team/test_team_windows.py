"""The team's request windows against the service's own count: a request is counted by
the service when it arrives, which can be well after the team gave it room (a busy
machine, a slow network), and a member starting late does not know the limits yet."""

from __future__ import annotations

# ruff: noqa: F811  (the cluster fixtures are imported by name)
import asyncio
from contextlib import AsyncExitStack
from pathlib import Path

import psycopg
import pytest

from companion.api.client import Client
from companion.api.pacing import Pacer
from companion.api.schema import AccountLimits
from companion.sandbox import Limits, SandboxConfig, SandboxThread
from companion.store import Store
from companion.store.team import PostgresAccount
from tests.support.real_postgres import real_postgres, team_db  # noqa: F401

pytestmark = pytest.mark.postgres
WINDOW = 2.0  # seconds: the sandbox's and the members' window, compressed from 60 s
ONE_A_WINDOW = AccountLimits(concurrency=1, queue=1, create_per_minute=1, other_per_minute=1)
# Faults "slow" delays each request 0.2-1.2 s before the service counts it; with seed 15
# the first is counted 1.17 s late and the second 0.21 s late: the second, sent one
# window after the first was given room, reaches the service before the first one's
# moment there has left the window, unless the team waits for the first one's answer.
SLOW = "slow:15"


def test_room_counts_from_the_answer_not_from_when_it_was_given(team_db: str, tmp_path: Path):
    box = SandboxThread(
        SandboxConfig(
            api_keys=["studio:sk-a", "studio:sk-b"],
            limits=Limits(**ONE_A_WINDOW.model_dump()),
            rate_window=WINDOW,
            faults=SLOW,
            journal=True,
        )
    ).start()

    async def scenario() -> None:
        async with AsyncExitStack() as stack:
            calls = []
            for name in ("a", "b"):
                store = Store(tmp_path / name / "companion.db")
                stack.callback(store.close)
                account = await stack.enter_async_context(
                    PostgresAccount(team_db, store=store, service=box.base_url, member=name)
                )
                pacer = Pacer(ONE_A_WINDOW, window=WINDOW)
                client = await stack.enter_async_context(
                    Client(box.base_url, f"sk-{name}", pacer=pacer)
                )
                pacer.share(account)
                calls.append(client.get_credit_balance())
            await asyncio.wait_for(asyncio.gather(*calls), 60)  # a hang guard, no timing

    try:
        asyncio.run(scenario())
        journal = box.service.journal
        assert journal is not None
        answers = [(e.path, e.status) for e in journal.entries]
    finally:
        box.stop()
    assert answers == [("/v1/credits/balance", 200)] * 2  # no 429 on the way
    with psycopg.connect(team_db, autocommit=True) as conn:
        told = conn.execute(b"SELECT count(*) FILTER (WHERE answered) FROM companion.window_hits")
        assert told.fetchone() == (2,)  # both answers reached the team before its close


def test_a_member_that_has_not_read_the_limits_yet_waits_for_the_teams_window(
    team_db: str, tmp_path: Path
):
    async def scenario() -> float:
        async with AsyncExitStack() as stack:
            team = []
            for name in ("early", "late"):
                store = Store(tmp_path / name / "companion.db")
                stack.callback(store.close)
                team.append(
                    await stack.enter_async_context(
                        PostgresAccount(team_db, store=store, service="http://x/v1", member=name)
                    )
                )
            early, late = team
            early.configure(ONE_A_WINDOW, 60.0)
            while (await early.status())["window"]["others_limit"] is None:
                await asyncio.sleep(0.05)  # the limits reach the team in the background
            taken, ticket = await early.take_room("other", 1, 60.0)
            assert taken == 0.0
            early.answered(ticket)
            # Its first request (GET /account, to learn the limits) still takes the
            # team's room: the service counts it like any other.
            wait, _ = await late.take_room("other", None, 60.0)
            return wait

    assert asyncio.run(scenario()) > 50


def test_a_full_window_books_the_next_window_in_turn_instead_of_telling_all_one_moment(
    team_db: str, tmp_path: Path
):
    async def scenario() -> list[tuple[float, object | None]]:
        async with AsyncExitStack() as stack:
            store = Store(tmp_path / "m" / "companion.db")
            stack.callback(store.close)
            member = await stack.enter_async_context(
                PostgresAccount(team_db, store=store, service="http://x/v1", member="m")
            )
            taken = []
            for _ in range(6):
                wait, ticket = await member.take_room("create", 2, 60.0)
                if ticket is not None and wait == 0:
                    member.answered(ticket)  # sent at once and answered
                    await asyncio.wait_for(told(team_db), 30)  # a hang guard, no timing
                taken.append((wait, ticket))
            return taken

    taken = asyncio.run(scenario())
    # Two a window: the next two are booked for the next window; the two after them wait
    # behind bookings not answered yet, so they are told when to ask again.
    assert [round(wait / 60) for wait, _ in taken] == [0, 0, 1, 1, 2, 2]
    assert [ticket is not None for _, ticket in taken] == [True] * 4 + [False] * 2


async def told(dsn: str) -> None:
    """Until every answer reported so far has reached the team (they go in the background)."""
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        while True:
            cursor = await conn.execute(b"SELECT bool_and(answered) FROM companion.window_hits")
            if (await cursor.fetchone()) == (True,):
                return
            await asyncio.sleep(0.05)
