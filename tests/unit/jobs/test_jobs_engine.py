"""The job engine against the sandbox: lifecycle, installs, books, budgets, recovery."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from companion.api.client import Client
from companion.jobs.engine import STAGING, Budget, Engine
from companion.jobs.errors import TransitionError
from companion.jobs.lifecycle import ALLOWED, State, check
from companion.media.demo_art import draw_character
from companion.store import Store
from tests.conftest import TEST_KEY
from tests.support.jobs import request_for


def run_engine(sandbox: Any, store: Store, action: Any, budget: Budget | None = None) -> Any:
    async def go() -> Any:
        async with Client(sandbox.base_url, TEST_KEY) as client:
            engine = Engine(store, client, sandbox.base_url, budget=budget)
            return await action(engine)

    return asyncio.run(go())


def test_lifecycle_rejects_moves_it_does_not_allow() -> None:
    check("new", State.QUOTED)
    with pytest.raises(TransitionError):
        check("new", State.RUNNING)
    with pytest.raises(TransitionError):
        check("done", State.NEW)
    assert all(isinstance(v, frozenset) for v in ALLOWED.values())


def test_store_migrates_old_databases_and_keeps_their_data(tmp_path: Path) -> None:
    import sqlite3

    from companion.store.db import MIGRATIONS

    path = tmp_path / "c.db"
    old = sqlite3.connect(path)  # a database as the first release left it
    old.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    old.execute("INSERT INTO schema_version VALUES (1)")
    old.executescript(MIGRATIONS[0])
    old.execute(
        "INSERT INTO jobs (id, kind, state, priority, name, request, created_at, "
        "updated_at) VALUES ('j1', 'animation', 'done', 1, 'old', '{}', 'x', 'x')"
    )
    old.commit()
    old.close()
    store = Store(path)
    assert store.version == len(MIGRATIONS)
    assert store.job("j1").name == "old"
    store.snapshot(10)
    store.close()
    assert Store(path).version == len(MIGRATIONS)


def test_a_job_end_to_end(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox()
    store = Store(tmp_path / "companion.db")
    image = tmp_path / "hero.png"
    draw_character(64).save(image)
    project = tmp_path / "project" / "animations"

    async def go(engine: Engine) -> Any:
        job = engine.submit(request_for(image), name="hero", target_dir=project)
        return await engine.run(job.id)

    job = run_engine(sandbox, store, go)
    assert job.state == "done" and job.remote_id
    installed = sorted(p.name for p in project.iterdir() if not p.name.startswith("."))
    # The video alone was bought and exported here: the formats asked, nothing else.
    assert installed == ["hero.json", "hero.png", "hero_godot.zip"]
    assert not list((project / STAGING).glob("*/*"))
    remote = sandbox.call(lambda: sandbox.service.state.tasks[job.remote_id])
    assert remote.metadata["companion_job"] == job.id
    ledger = {e["entry"]: e["credits"] for e in store.ledger(job.id)}
    assert ledger["quote"] == remote.quoted and ledger["hold"] == remote.quoted
    assert ledger["charge"] == remote.charged
    assert all(row.installed_path for row in store.assets(job.id))


def test_uploads_are_reused_by_content_hash(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(journal=True)
    store = Store(tmp_path / "companion.db")
    image = tmp_path / "big.png"  # noise does not compress: over the inline threshold
    noise = np.random.default_rng(1).integers(0, 255, (400, 400, 3), dtype=np.uint8)
    Image.fromarray(noise).save(image)
    assert image.stat().st_size > 256 * 1024

    async def go(engine: Engine) -> Any:
        jobs = [
            engine.submit(request_for(image), name=f"j{i}", target_dir=tmp_path / f"t{i}")
            for i in range(2)
        ]
        return [await engine.run(j.id) for j in jobs]

    jobs = run_engine(sandbox, store, go)
    assert [j.state for j in jobs] == ["done", "done"]
    uploads = [e for e in sandbox.service.journal.entries if e.path == "/v1/files"]
    assert len(uploads) == 1


def test_over_budget_waits_for_approval(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox()
    store = Store(tmp_path / "companion.db")
    image = tmp_path / "hero.png"
    draw_character(64).save(image)

    async def first(engine: Engine) -> Any:
        job = engine.submit(request_for(image), name="hero", target_dir=tmp_path / "out")
        return await engine.run(job.id)

    job = run_engine(sandbox, store, first, Budget(per_job=1))
    assert job.state == "awaiting_approval" and job.quote and job.quote > 1
    assert sandbox.call(lambda: len(sandbox.service.state.tasks)) == 0  # nothing spent

    async def approve(engine: Engine) -> Any:
        engine.approve(job.id)
        return await engine.run(job.id)

    assert run_engine(sandbox, store, approve, Budget(per_job=1)).state == "done"


def test_books_reconcile_with_the_balance(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(api_keys=["sk-test", "sk-colleague"])
    store = Store(tmp_path / "companion.db")
    assert store.version >= 2
    image = tmp_path / "hero.png"
    draw_character(64).save(image)

    async def go(engine: Engine) -> list[Any]:
        first = await engine.reconcile()
        job = engine.submit(request_for(image), name="hero", target_dir=tmp_path / "out")
        await engine.run(job.id)
        second = await engine.reconcile()
        # A colleague spends on the same account: it shows up as drift.
        from tests.support.calls import Api
        from tests.support.sandbox import generation_body

        Api(sandbox.base_url, key="sk-colleague").create("/video-generations", generation_body())
        third = await engine.reconcile()
        return [first, second, third]

    first, second, third = run_engine(sandbox, store, go)
    assert first["drift"] is None and second["drift"] == 0
    assert second["available"] == 1000 - second["committed"]
    assert third["drift"] is not None and third["drift"] < 0
