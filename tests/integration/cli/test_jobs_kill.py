"""Kill -9 at every step boundary, across many jobs, then recover.

A real sandbox (with its dropped-create fault, on both faces) and real `companion jobs run`
processes that SIGKILL themselves at each crash point in turn. Afterwards every job is
done with exactly one remote task, the ledger agrees with the sandbox to the credit, and
no project folder ever held a partial pack."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from companion.sandbox import Limits
from companion.sandbox.face import LATITUDE, with_changes
from companion.store import Store
from tests.conftest import both_faces
from tests.support.calls import Api

KEY = "sk-kill"
JOBS = 5
POINTS = ["after_persist", "after_send", "mid_poll", "mid_download", "mid_install"]
FORMATS = "spritesheet,spritesheet_json,godot_pack,unity_pack"


def companion(
    env: dict[str, str], *args: str, crash: str | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    run_env = dict(env)
    if crash:
        run_env["COMPANION_CRASH_AT"] = crash
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        env=run_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_no_partial_pack(project: Path) -> None:
    for path in project.rglob("*"):
        if not path.is_file() or ".companion-staging~" in path.parts:
            continue
        assert not path.name.endswith(".part"), path
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                assert archive.testzip() is None
        if path.suffix == ".unitypackage":
            with tarfile.open(path) as archive:
                assert archive.getmembers()


@pytest.fixture
def sandbox_process(make_sandbox, face: str):  # type: ignore[no-untyped-def]
    """The sandbox the killed processes talk to (it is never killed itself), with the
    dropped-create fault, on the test's face: the latitude one's waits made short (its
    9 s in-progress window and 2 s credit posting matter in
    tests/integration/sandbox/test_books_service.py), and its price rise allowed by the margin in
    config.yaml (see below)."""
    chosen = face
    if face == "latitude":
        chosen = with_changes(LATITUDE, in_progress_seconds=1.5, credits_posted_after=0.5)
    sandbox = make_sandbox(
        api_keys=[KEY],
        faults="dropped-create:5",
        task_seconds=0.4,
        limits=Limits(2, 20, 1000, 100000),
        min_retry_after=1,
        face=chosen,
    )
    return sandbox.base_url


def own_tasks(api: Api, ids: set[str], kind: str = "animations") -> list[dict]:
    """The tasks of these jobs, read on every page (in whatever order, at whatever size)."""
    found, cursor = [], None
    while True:
        page = api.get(f"/{kind}?limit=100" + (f"&cursor={cursor}" if cursor else "")).json
        found += [t for t in page["data"] if t["metadata"].get("companion_job") in ids]
        cursor = page["next_cursor"]
        if cursor is None:
            return found


@pytest.mark.slow
@both_faces
@pytest.mark.parametrize("export", ["service", "here"])
def test_kill_at_every_step_and_recover(sandbox_process: str, tmp_path: Path, export: str) -> None:
    """export "service": the service's own export is bought and its outputs downloaded;
    "here": the video alone is bought and exported here (engine packs game-ready, in
    place and trimmed), nothing but the video downloaded (no mid_download point of its
    own)."""
    points = POINTS if export == "service" else [p for p in POINTS if p != "mid_download"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env.update(
        COMPANION_HOME=str(tmp_path / "home"),
        COMPANION_BASE_URL=sandbox_process,
        COMPANION_API_KEY=KEY,
    )
    project = tmp_path / "project"
    (tmp_path / "home").mkdir()
    # The latitude face prices a create 25 % over its quote: allowed, so the jobs go on.
    (tmp_path / "home" / "config.yaml").write_text("price_margin_percent: 50\n")

    def add_job(i: int) -> None:
        image = tmp_path / f"hero{i}.png"
        draw_character(64 + 8 * i).save(image)
        made = companion(
            env,
            *("jobs", "add", str(image), "--prompt", "idle breathing", "--formats", FORMATS),
            *("--frame-count", "4", "--width", "64", "--height", "64", "--seconds", "1"),
            # The service's export, downloaded (an engine pack is otherwise made here).
            *(("--service-export", "--no-in-place", "--no-trim") if export == "service" else ()),
            *("--resolution", "360p", "--target", str(project / f"anim{i}"), "--name", f"hero{i}"),
        )
        assert made.returncode == 0, made.stderr

    for i in range(JOBS):
        add_job(i)
    added = JOBS
    killed_at = dict.fromkeys(points, 0)

    def run_until(point: str, nth: int) -> None:
        result = companion(env, "jobs", "run", crash=f"{point}:{nth}")
        assert result.returncode in (-signal.SIGKILL, 0, 1), result.stderr
        killed_at[point] += result.returncode == -signal.SIGKILL
        assert_no_partial_pack(project)

    for point in points:
        for nth in (1, 2):
            run_until(point, nth)
        for _ in range(3):
            if killed_at[point]:
                break
            # Jobs run side by side, so an earlier run may have carried every job past
            # this point: a fresh job reaches it.
            add_job(added)
            added += 1
            run_until(point, 1)
    # Every point was reached and killed at least once.
    assert all(killed_at[point] >= 1 for point in points), killed_at
    final = companion(env, "jobs", "run")
    assert final.returncode == 0, final.stdout + final.stderr

    store = Store(tmp_path / "home" / "companion.db")
    jobs = store.jobs()
    assert len(jobs) == added and all(j.state == "done" for j in jobs)
    # Which path each job took: finished here (its local part asks in place and trim)
    # or the service's export.
    local = [(j.request.get("local_export") or {}) for j in jobs]
    assert all(
        bool(part.get("in_place") and part.get("trim")) == (export == "here") for part in local
    )
    api = Api(sandbox_process, key=KEY)
    # Made here, a job buys the video alone (a video generation); else a one-click.
    bought, other = ("video-generations", "animations")
    if export == "service":
        bought, other = other, bought
    ids = {j.id for j in jobs}
    remote = own_tasks(api, ids, bought)
    assert own_tasks(api, ids, other) == []
    by_job: dict[str, list[dict]] = {}
    for task in remote:
        by_job.setdefault(task["metadata"]["companion_job"], []).append(task)
    assert sorted(by_job) == sorted(j.id for j in jobs)
    assert all(len(tasks) == 1 for tasks in by_job.values()), "a job was paid twice"
    for job in jobs:
        task = by_job[job.id][0]
        assert task["id"] == job.remote_id and task["status"] == "succeeded"
        ledger = {e["entry"]: e["credits"] for e in store.ledger(job.id)}
        assert ledger["charge"] == task["credits"]["charged"]
        assert (
            sum(e["credits"] for e in store.ledger(job.id) if e["entry"] == "hold")
            == (task["credits"]["quoted"])
        )
        files = sorted(p.name for p in Path(job.target_dir).iterdir() if not p.name.startswith("."))
        # Only the formats asked for: the clip video stays at the service.
        assert files == sorted(
            [
                f"{job.name}.json",
                f"{job.name}.png",
                f"{job.name}.unitypackage",
                f"{job.name}_godot.zip",
            ]
        )
    balance = api.get("/credits/balance").json["available"]
    assert balance == 1000 - sum(t[0]["credits"]["charged"] for t in by_job.values())
    assert store.credit_moves()["held"] == 0 and store.charged() == 1000 - balance
    assert_no_partial_pack(project)
    shown = json.loads(companion(env, "jobs", "show", jobs[0].id[:8]).stdout)
    assert shown["state"] == "done" and shown["outputs"]
