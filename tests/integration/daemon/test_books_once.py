"""The daemon's API pays once for one animation: the same request again (the picture's
bytes, every setting, the name and the folder) answers the job that made it while its
files are in place, or the one still making it; `again: true` makes a new one. And a
budget a month holds a job for approval before anything is spent."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.api.client import Client
from companion.jobs.engine import Budget, Engine
from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from companion.store import Store
from tests.conftest import TEST_KEY, both_faces
from tests.support.calls import Api
from tests.support.cli import tasks
from tests.support.daemon import DaemonThread, call
from tests.support.drops import DEFAULTS, png_bytes
from tests.support.jobs import request_for

pytestmark = both_faces  # a money test: on both faces of the sandbox


def _final(daemon: DaemonThread, job_id: str) -> dict[str, Any]:
    for _ in range(600):
        job: dict[str, Any] = call(daemon, "GET", f"/api/v1/jobs/{job_id}").json
        if job["state"] in ("done", "failed", "cancelled"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not end")


def test_the_same_request_again_answers_its_job_whatever_lies_in_its_place(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    """A file in one of the job's places that no record names (what a daemon killed
    between moving a file in and recording it leaves): the same request again is still
    answered by the job under way, not refused as a clash, and nothing more is bought."""
    sandbox = make_sandbox(task_seconds=3)
    api = Api(sandbox.base_url, key=TEST_KEY)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = tmp_path / "game"
        project.mkdir()
        (project / "hero.png").write_bytes(png_bytes(3))
        assert call(running, "POST", "/api/v1/projects", {"root": str(project)}).status == 201
        body: dict[str, Any] = {"project_root": str(project), "image_path": "hero.png"}
        body.update(DEFAULTS)
        first = call(running, "POST", "/api/v1/animate", body)
        assert first.status == 202, first.body
        (project / "animations").mkdir(exist_ok=True)
        (project / "animations" / "hero.png").write_bytes(png_bytes(4))
        again = call(running, "POST", "/api/v1/animate", body)
        assert (again.status, again.json["id"]) == (200, first.json["id"]), again.body
        _final(running, first.json["id"])
        assert len(tasks(api)) == 1
    finally:
        running.stop()


@pytest.mark.slow
def test_the_same_request_again_is_not_paid_again(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.5)
    api = Api(sandbox.base_url, key=TEST_KEY)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = tmp_path / "game"
        project.mkdir()
        (project / "hero.png").write_bytes(png_bytes(3))
        assert call(running, "POST", "/api/v1/projects", {"root": str(project)}).status == 201
        body: dict[str, Any] = {"project_root": str(project), "image_path": "hero.png"}
        body.update(DEFAULTS)
        first = call(running, "POST", "/api/v1/animate", body)
        assert first.status == 202, first.body
        joined = call(running, "POST", "/api/v1/animate", body)  # while it is under way
        assert (joined.status, joined.json["id"]) == (200, first.json["id"])
        assert _final(running, first.json["id"])["state"] == "done"
        reused = call(running, "POST", "/api/v1/animate", body)
        assert (reused.status, reused.json["id"]) == (200, first.json["id"])
        assert len(tasks(api)) == 1
        other = call(running, "POST", "/api/v1/animate", {**body, "prompt": "walk"})
        assert other.status == 202 and other.json["id"] != first.json["id"]
        # One after the other: both write hero's files, and the request below is made
        # only by the job whose files are there last.
        assert _final(running, other.json["id"])["state"] == "done"
        again = call(running, "POST", "/api/v1/animate", {**body, "again": True})
        assert again.status == 202 and again.json["id"] not in (first.json["id"], other.json["id"])
        assert _final(running, again.json["id"])["state"] == "done"
        assert len(tasks(api)) == 3
        latest = call(running, "POST", "/api/v1/animate", body)
        assert (latest.status, latest.json["id"]) == (200, again.json["id"])
        # The walk's files were written over by the later job of the same name.
        remade = call(running, "POST", "/api/v1/animate", {**body, "prompt": "walk"})
        assert remade.status == 202 and remade.json["id"] != other.json["id"]
        assert _final(running, remade.json["id"])["state"] == "done"
        (project / "animations" / "hero.png").unlink()  # its files gone: made again
        gone = call(running, "POST", "/api/v1/animate", {**body, "prompt": "walk"})
        assert gone.status == 202 and gone.json["id"] != remade.json["id"]
    finally:
        running.stop()


def test_a_month_budget_holds_a_job_for_approval_holding_nothing(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    """Spent this month plus the quote over budgets: per_month waits for approval."""
    sandbox = make_sandbox(task_seconds=0.2)
    store = Store(tmp_path / "companion.db")
    earlier = store.add_job("animation", "earlier", {})
    for entry in ("quote", "hold", "charge"):
        store.record(earlier.id, entry, 10)
    image = tmp_path / "hero.png"
    draw_character(64).save(image)
    budget = Budget(per_month=12)

    async def go(again: bool) -> Any:
        async with Client(sandbox.base_url, TEST_KEY) as client:
            engine = Engine(store, client, sandbox.base_url, budget=budget)
            if again:
                engine.approve(job.id)
                return await engine.run(job.id)
            made = engine.submit(request_for(image), name="hero", target_dir=tmp_path / "out")
            return await engine.run(made.id)

    try:
        job = asyncio.run(go(False))
        assert job.state == "awaiting_approval" and job.quote
        assert store.credit_moves(job.id) == {"spent": 0, "held": 0, "released": 0, "refunded": 0}
        assert tasks(Api(sandbox.base_url)) == []  # nothing created
        assert asyncio.run(go(True)).state == "done"
    finally:
        store.close()
