"""The books as the service keeps them, whatever it answers within the spec: a create
still being accepted (spec 7), the price as created (4.4, 2.3), the original task found
in any list (2.2, 4.7) and credits posted after the end (2.3). Each against the real
sandbox on loopback, its latitude face narrowed to the one detail under test."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.api.client import Client
from companion.api.transport import RetryPolicy
from companion.jobs.engine import Budget, Engine
from companion.jobs.remote.bought import bought
from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from companion.sandbox.face import LATITUDE, with_changes
from companion.sandbox.state import stable_id
from companion.store import Store
from tests.conftest import TEST_KEY, both_faces
from tests.support.jobs import request_for

START = 1000
# The latitude face with only its answers of this slice that a test does not narrow:
# the others' waits made short (the 9 s and 2 s matter only where they are tested).
QUIET = with_changes(
    LATITUDE, in_progress_seconds=0.0, create_price_rise=0.0, credits_posted_after=0.0
)
DROP_FIRST = "dropped-create:1"  # the first create's response is lost after it is recorded


def available(sandbox: SandboxThread) -> int:
    accounts: Any = sandbox.call(lambda: sandbox.service.state.accounts)
    return int(accounts[stable_id("account", "default")].available)


def tasks_of(sandbox: SandboxThread, job_id: str) -> list[Any]:
    tasks: Any = sandbox.call(lambda: list(sandbox.service.state.tasks.values()))
    return [t for t in tasks if t.metadata.get("companion_job") == job_id]


def run(
    sandbox: SandboxThread,
    store: Store,
    action: Callable[[Engine], Any],
    budget: Budget | None = None,
    policy: RetryPolicy | None = None,
    **engine: Any,
) -> Any:
    async def go() -> Any:
        async with Client(sandbox.base_url, TEST_KEY, policy=policy) as client:
            made = Engine(store, client, sandbox.base_url, budget=budget)
            for name, value in engine.items():
                setattr(made, name, value)
            return await action(made)

    return asyncio.run(go())


def one_job(tmp_path: Path, store: Store) -> Callable[[Engine], Any]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    image = tmp_path / "hero.png"
    draw_character(64).save(image)

    async def go(engine: Engine) -> Any:
        job = engine.submit(request_for(image), name="hero", target_dir=tmp_path / "out")
        return await engine.run(job.id)

    return go


def books_agree(sandbox: SandboxThread, store: Store) -> None:
    moves = store.credit_moves()
    assert moves["held"] == 0, moves
    assert moves["spent"] == START - available(sandbox), moves


# -- item 2: a create still being accepted ---------------------------------------------


@pytest.mark.slow
def test_a_create_still_being_accepted_is_waited_for_and_paid_once(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    """The create's answer is lost; every resend for 9 s is told IDEMPOTENCY_IN_PROGRESS
    (Retry-After 1): the job waits and resends, and is made from the one task."""
    face = with_changes(LATITUDE, create_price_rise=0.0, credits_posted_after=0.0)
    sandbox = make_sandbox(face=face, faults=DROP_FIRST)
    store = Store(tmp_path / "companion.db")
    job = run(sandbox, store, one_job(tmp_path, store))
    assert job.state == "done", job.error
    [task] = tasks_of(sandbox, job.id)
    assert task.id == job.remote_id
    ledger = {e["entry"]: e["credits"] for e in store.ledger(job.id)}
    assert ledger["hold"] == task.quoted and ledger["charge"] == task.charged
    books_agree(sandbox, store)


def test_past_the_bound_the_job_is_unknown_its_hold_counted_and_resumed_once(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    face = with_changes(QUIET, in_progress_seconds=30.0)
    sandbox = make_sandbox(face=face, faults=DROP_FIRST)
    store = Store(tmp_path / "companion.db")
    short = RetryPolicy(max_attempts=2)
    job = run(sandbox, store, one_job(tmp_path, store), policy=short, in_progress_bound=2.0)
    assert job.state == "unknown", (job.state, job.error)
    assert "refused" not in (job.error or "") and "never pays" in (job.error or "")
    [task] = tasks_of(sandbox, job.id)
    # Its hold is in the books and the budgets, as the service holds it.
    assert store.credit_moves(job.id)["held"] == job.quote == task.quoted
    assert store.charged() == START - available(sandbox)

    async def again(engine: Engine) -> Any:
        # What the same command again does with it: the task is looked for, found, and
        # nothing is sent (a resend would still be told it is being accepted).
        return await engine.run(job.id)

    done = run(sandbox, store, again)
    assert done.state == "done", done.error
    assert [t.id for t in tasks_of(sandbox, job.id)] == [task.id] == [done.remote_id]
    books_agree(sandbox, store)


# -- item 3: the price as created --------------------------------------------------------


def rising(make_sandbox: Callable[..., SandboxThread]) -> SandboxThread:
    return make_sandbox(face=with_changes(QUIET, create_price_rise=0.25))


def test_a_task_priced_over_its_quote_is_cancelled_at_once(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = rising(make_sandbox)
    store = Store(tmp_path / "companion.db")
    job = run(sandbox, store, one_job(tmp_path, store))
    assert job.state == "failed"
    [task] = tasks_of(sandbox, job.id)
    assert task.status == "cancelled" and task.quoted > (job.quote or 0)
    assert f"at {task.quoted} credits" in (job.error or "")
    assert f"{task.released} released" in (job.error or ""), job.error
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    books_agree(sandbox, store)
    assert START - available(sandbox) == task.charged


def test_a_margin_allows_the_price_and_a_budget_still_holds(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = rising(make_sandbox)
    store = Store(tmp_path / "companion.db")
    job = run(sandbox, store, one_job(tmp_path, store), Budget(price_margin_percent=50))
    assert job.state == "done", job.error
    [task] = tasks_of(sandbox, job.id)
    assert store.charged(job.id) == task.charged > (job.quote or 0)
    books_agree(sandbox, store)
    # Within the margin, but past the per-job budget its quote was within: cancelled.
    other = Store(tmp_path / "other.db")
    budget = Budget(per_job=job.quote, price_margin_percent=50)
    refused = run(sandbox, other, one_job(tmp_path / "b", other), budget)
    assert refused.state == "failed" and "over a budget" in (refused.error or "")
    [cancelled] = tasks_of(sandbox, refused.id)
    assert cancelled.status == "cancelled"
    assert other.charged(refused.id) == cancelled.charged


# -- item 9: the original found in any list ------------------------------------------------


def test_the_original_is_found_whatever_the_order_and_the_page_size(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    """Oldest first, 7 a page, 130 tasks of other clients before it."""
    sandbox = make_sandbox(face=QUIET)
    store = Store(tmp_path / "companion.db")
    job = run(sandbox, store, one_job(tmp_path, store))
    assert job.state == "done", job.error

    async def find(engine: Engine) -> Any:
        made = store.job(job.id)
        return await engine._find_original(made, bought(made))

    found = run(sandbox, store, find)
    assert found is not None and str(found.id) == job.remote_id


@both_faces
def test_a_lost_create_answer_is_found_and_paid_once(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path, face: str
) -> None:
    chosen = QUIET if face == "latitude" else face
    sandbox = make_sandbox(face=chosen, faults=DROP_FIRST)
    store = Store(tmp_path / "companion.db")
    job = run(sandbox, store, one_job(tmp_path, store))
    assert job.state == "done", job.error
    assert [t.id for t in tasks_of(sandbox, job.id)] == [job.remote_id]
    books_agree(sandbox, store)


# -- item 10: credits posted after the end ---------------------------------------------------


def test_credits_posted_after_the_end_are_entered(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(face=with_changes(QUIET, credits_posted_after=1.5))
    store = Store(tmp_path / "companion.db")

    async def go(engine: Engine) -> Any:
        before = await engine.reconcile()
        job = await one_job(tmp_path, store)(engine)
        return before, job, await engine.reconcile()

    before, job, after = run(sandbox, store, go)
    assert job.state == "done", job.error
    [task] = tasks_of(sandbox, job.id)
    assert task.credit_status == "charged" and store.charged(job.id) == task.charged > 0
    assert before["drift"] is None and after["drift"] == 0
    books_agree(sandbox, store)


def test_credits_posted_after_a_job_moved_on_are_followed_later(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    """The job does not wait for them (bound 0): its hold stays counted, and the next
    reconcile (as `companion credits` and the next start do) enters the charge."""
    sandbox = make_sandbox(face=with_changes(QUIET, credits_posted_after=1.5))
    store = Store(tmp_path / "companion.db")
    job = run(sandbox, store, one_job(tmp_path, store), credit_follow_seconds=0.0)
    assert job.state == "done", job.error
    [task] = tasks_of(sandbox, job.id)
    assert store.credit_moves(job.id)["held"] == task.quoted  # still held, and counted
    assert store.charged() == START - available(sandbox)

    async def later(engine: Engine) -> Any:
        for _ in range(40):
            if not await engine.follow_books():
                break
            await asyncio.sleep(0.25)
        await engine.reconcile()
        return await engine.reconcile()

    books = run(sandbox, store, later)
    assert books["drift"] == 0
    assert store.charged(job.id) == tasks_of(sandbox, job.id)[0].charged
    books_agree(sandbox, store)
