"""The books against the service's own account: a cancel's released hold is not spend,
and `companion credits` shows held, spent and released apart."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from companion.api.client import Client
from companion.jobs.engine import Engine
from companion.media.demo_art import draw_character
from companion.store import Store
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.jobs import request_for
from tests.support.sandbox import generation_body


def test_a_released_hold_is_not_spent(tmp_path: Path) -> None:
    store = Store(tmp_path / "companion.db")
    kept = store.add_job("animation", "kept", {})
    cancelled = store.add_job("animation", "cancelled", {})
    running = store.add_job("animation", "running", {})
    for job, entries in (
        (kept, [("quote", 7), ("hold", 7)]),
        (cancelled, [("quote", 7), ("hold", 7)]),
        (running, [("quote", 5), ("hold", 5)]),
    ):
        for entry, credits in entries:
            store.record(job.id, entry, credits)
    store.settle(kept.id, 7, 0, 0)
    store.settle(cancelled.id, 0, 0, 7)
    assert store.charged(cancelled.id) == 0
    assert store.charged(kept.id) == 7
    assert store.charged() == 12  # 7 spent + 5 still held
    assert store.committed() == 12
    assert store.credit_moves() == {"spent": 7, "held": 5, "released": 7, "refunded": 0}
    store.close()


@pytest.mark.slow
def test_the_dock_scenario_leaves_books_equal_to_the_account(
    make_sandbox: Any, tmp_path: Path
) -> None:
    """Animate one picture, start another and cancel it while it runs: one charge at the
    service, one in the books."""
    sandbox = make_sandbox(task_seconds=3.0, api_keys=[TEST_KEY, "sk-colleague"])
    home = tmp_path / "home"
    store = Store(home / "companion.db")
    image = tmp_path / "hero.png"
    draw_character(64).save(image)
    other = tmp_path / "villain.png"
    draw_character(72).save(other)

    async def go() -> dict[str, Any]:
        async with Client(sandbox.base_url, TEST_KEY) as client:
            engine = Engine(store, client, sandbox.base_url)
            before = await engine.reconcile()
            first = engine.submit(request_for(image), name="hero", target_dir=tmp_path / "a")
            assert (await engine.run(first.id)).state == "done"
            second = engine.submit(request_for(other), name="villain", target_dir=tmp_path / "b")
            runner = asyncio.create_task(engine.run(second.id))
            while store.job(second.id).state != "running":
                await asyncio.sleep(0.05)
            await engine.cancel(second.id)
            ended = await runner
            after = await engine.reconcile()
            return {"before": before, "after": after, "second": ended.state}

    result = asyncio.run(go())
    spent = result["before"]["available"] - result["after"]["available"]
    assert spent > 0
    assert store.charged() == spent
    moves = store.credit_moves()
    assert moves["spent"] == spent and moves["held"] == 0 and moves["released"] > 0
    assert result["after"]["drift"] == 0
    store.close()

    # `companion credits` says the same, each movement apart, and that they agree.
    shown = json.loads(companion(sandbox.base_url, home, "credits", "--json").stdout)
    assert shown["available"] == result["after"]["available"]
    assert shown["spent_today"] == shown["today"] == spent
    assert shown["held"] == 0 and shown["released_today"] == moves["released"]
    assert shown["agree"] is True
    assert [(j["name"], j["spent"] > 0, j["released"] > 0) for j in shown["jobs"]] == [
        ("hero", True, False),
        ("villain", False, True),
    ]
    # Someone else spends on the account: the books no longer explain the balance.
    Api(sandbox.base_url, key="sk-colleague").create("/video-generations", generation_body())
    text = companion(sandbox.base_url, home, "credits")
    assert text.returncode == 0, text.stderr
    assert "the books and the service disagree" in text.stdout
    assert f"held by running jobs: 0; released or refunded today: {moves['released']}" in (
        text.stdout
    )
