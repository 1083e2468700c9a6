"""One JobRequest for every way in: the same intent makes the same request whether it
comes from `companion animate`, `companion jobs add`, the daemon's API or a watched
inbox; and a store written by the release before (progress kept inside the request)
is carried over, its unfinished jobs resumed to done."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from companion.api.client import Client
from companion.api.keys import new_idempotency_key
from companion.api.schema import ModelsResponse
from companion.cli.commands.animate import _request, plan_from_args
from companion.cli.main import build_parser
from companion.daemon.inbox.watch import ProjectWatcher
from companion.jobs.ask.request import JobRequest
from companion.jobs.engine import Engine
from companion.media.demo_art import draw_character
from companion.store import Store
from companion.store.db import MIGRATIONS
from tests.conftest import TEST_KEY
from tests.support.calls import Api, request
from tests.support.cli import companion
from tests.support.daemon import DaemonThread

PROVENANCE = {"origin", "fingerprint", "drop_source", "drop_hash", "drop_note"}
SIDECAR = """
prompt: wave
video: {duration_seconds: 1, resolution: 360p}
export: {frame_count: 4, output_width: 64, output_height: 64, output_formats: [spritesheet]}
"""  # transparency left open, as the command line without --transparent or --opaque
CLI_OPTIONS = ["--prompt", "wave", "--seconds", "1", "--resolution", "360p"]
CLI_OPTIONS += ["--frame-count", "4", "--width", "64", "--height", "64"]
CLI_OPTIONS += ["--formats", "spritesheet"]


def _daemon_request(home: Path, base_url: str, project: Path) -> dict[str, Any]:
    daemon = DaemonThread(home, base_url, TEST_KEY).start()
    try:
        headers = {
            "Authorization": f"Bearer {daemon.info['token']}",
            "Content-Type": "application/json",
        }

        def post(path: str, body: dict[str, Any]) -> Any:
            data = json.dumps(body).encode()
            return request("POST", daemon.url + path, body=data, headers=headers)

        assert post("/api/v1/projects", {"root": str(project)}).status == 201
        accepted = post(
            "/api/v1/animate",
            {
                "project_root": str(project),
                "image_path": "inbox/hero.png",
                "prompt": "wave",
                "video": {"duration_seconds": 1, "resolution": "360p"},
                "export": {
                    "frame_count": 4,
                    "output_width": 64,
                    "output_height": 64,
                    "output_formats": ["spritesheet"],
                },
            },
        )
        assert accepted.status == 202, accepted.body
        job_id = accepted.json["id"]
    finally:
        daemon.stop()
    store = Store(home / "companion.db")
    try:
        return store.job(job_id).request
    finally:
        store.close()


@pytest.mark.slow
def test_every_way_in_builds_the_same_request(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    project = (tmp_path / "game").resolve()
    inbox = project / "inbox"
    inbox.mkdir(parents=True)
    image = inbox / "hero.png"
    draw_character(64).save(image)
    target = project / "animations"

    # companion animate: the request it would hand the engine
    args = build_parser().parse_args(
        ["animate", str(image), *CLI_OPTIONS, "--out", str(target), "--name", "hero"]
    )
    # no game project; the picture by its bytes, so every door names the same generation
    picture = hashlib.sha256(image.read_bytes()).hexdigest()
    animate = _request(plan_from_args(args), [picture], None).stored()

    # companion jobs add: the job it records
    home = tmp_path / "home"
    added = companion(
        sandbox.base_url, home, "jobs", "add", str(image), *CLI_OPTIONS,
        "--target", str(target), "--name", "hero",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    store = Store(home / "companion.db")
    try:
        jobs_add = store.job(added.stdout.strip()).request
    finally:
        store.close()

    # the daemon's API
    daemon = _daemon_request(tmp_path / "daemon-home", sandbox.base_url, project)

    # a watched inbox: the drop with its sidecar
    (inbox / "hero.yaml").write_text(SIDECAR)
    # with the model listing the daemon keeps for its drops (which listed model keys)
    listed = ModelsResponse.model_validate(Api(sandbox.base_url, key=TEST_KEY).get("/models").json)
    watcher = ProjectWatcher(
        {"root": str(project)},
        lambda *a: None,  # type: ignore[arg-type,return-value]
        lambda d: [],
        models=lambda: listed,
    )
    inbox_drop = watcher._prepare(image).request.stored()

    def intent(stored: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in stored.items() if k not in PROVENANCE | {"install"}}

    assert intent(animate) == intent(jobs_add) == intent(daemon) == intent(inbox_drop)
    assert intent(animate)["install_formats"] == ["spritesheet"]
    # The picture has transparent pixels: every door asks for a keyed video, keyed out.
    assert intent(animate)["video"]["transparency"]["mode"] == "alpha_key"
    assert intent(animate)["export"]["transparent"] == {"enabled": True}
    # The two ways in that know the project install into it alike.
    assert daemon["install"] == inbox_drop["install"] == {"engine": "other", "root": str(project)}
    assert JobRequest.of(daemon).model_copy(update=dict.fromkeys(PROVENANCE)) == JobRequest.of(
        inbox_drop
    ).model_copy(update=dict.fromkeys(PROVENANCE))


@pytest.mark.slow
def test_jobs_add_installs_only_the_formats_asked_for(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    home = tmp_path / "home"
    draw_character(64).save(tmp_path / "hero.png")
    target = tmp_path / "out"
    added = companion(
        sandbox.base_url, home, "jobs", "add", str(tmp_path / "hero.png"), *CLI_OPTIONS,
        "--target", str(target),
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    ran = companion(sandbox.base_url, home, "jobs", "run")
    assert ran.returncode == 0, ran.stderr
    # The clip video a one-click task also returns stays at the service.
    assert sorted(p.name for p in target.iterdir()) == ["hero.png"]


def _old_store(path: Path) -> None:
    """A database as the release before left it: schema version 4 (migrations are only
    ever appended), the engine's progress kept inside each job's request."""
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    old.execute("INSERT INTO schema_version VALUES (4)")
    for script in MIGRATIONS[:4]:
        old.executescript(script)
    old.commit()
    old.close()


def _old_job(path: Path, job_id: str, state: str, request: dict[str, Any], **more: Any) -> None:
    columns = {
        "id": job_id,
        "kind": "animation",
        "state": state,
        "priority": 1,
        "name": job_id,
        "request": json.dumps(request),
        "target_dir": str(path.parent / job_id),
        "created_at": "2026-11-01T00:00:00Z",
        "updated_at": "2026-11-01T00:00:00Z",
        **more,
    }
    old = sqlite3.connect(path)
    marks = ", ".join("?" * len(columns))
    old.execute(f"INSERT INTO jobs ({', '.join(columns)}) VALUES ({marks})", list(columns.values()))
    old.execute(
        "INSERT INTO ledger (job_id, entry, credits, at) VALUES (?, 'quote', ?, ?)",
        (job_id, more.get("quote", 0), "2026-11-01T00:00:00Z"),
    )
    old.commit()
    old.close()


def test_a_store_of_the_release_before_resumes_its_unfinished_jobs(
    make_sandbox, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    path = tmp_path / "companion.db"
    _old_store(path)
    image = tmp_path / "hero.png"
    draw_character(64).save(image)
    asked = {
        "origin": "cli",
        "image": str(image),
        "prompt": "idle",
        "last_frame": None,
        "references": [],
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "export": {
            "frame_count": 4,
            "output_width": 64,
            "output_height": 64,
            "output_formats": ["spritesheet", "gif"],
        },
        "selection": {},
        "install_formats": ["spritesheet", "gif"],
        "fingerprint": "f" * 64,
    }

    async def old_release() -> None:
        """What the release before had done: a job quoted, and one created at the
        service (the create sent, the task under way)."""
        async with Client(sandbox.base_url, TEST_KEY) as client:
            scratch = Store(tmp_path / "scratch.db")
            engine = Engine(scratch, client, sandbox.base_url)
            quoted = await engine.body_for(asked, name="quoted", job_id="quoted")
            credits = (await client.quote_animation(quoted)).credits
            resolved = quoted.model_dump(mode="json")
            _old_job(path, "quoted", "quoted", {**asked, "resolved": resolved}, quote=credits)
            running = await engine.body_for(asked, name="running", job_id="running")
            key = new_idempotency_key("job")
            body = running.model_dump_json().encode()
            task = await client.create_animation(running, idempotency_key=key)
            old = {**asked, "resolved": running.model_dump(mode="json"), "sent": True}
            _old_job(
                path, "running", "running", old, quote=credits,
                idempotency_key=key, body=body, remote_id=str(task.id),
            )  # fmt: skip
            scratch.close()

    asyncio.run(old_release())
    store = Store(path)
    assert store.version == len(MIGRATIONS)
    running = store.job("running")
    assert running.sent and running.resolved is not None and "sent" not in running.request
    assert JobRequest.of(running.request).install_formats == ["spritesheet", "gif"]

    async def resume() -> list[Any]:
        async with Client(sandbox.base_url, TEST_KEY) as client:
            engine = Engine(store, client, sandbox.base_url)
            return [await engine.run(job_id) for job_id in ("quoted", "running")]

    done = asyncio.run(resume())
    assert [j.state for j in done] == ["done", "done"], [j.error for j in done]
    for job in done:
        installed = sorted(p.name for p in Path(str(job.target_dir)).iterdir())
        assert installed == [f"{job.id}.gif", f"{job.id}.png"]  # asked for, no clip video
        assert job.remote_status == "succeeded" and "remote_status" not in job.request
    tasks = sandbox.call(lambda: list(sandbox.service.state.tasks))
    assert len(tasks) == 2  # the created one was found again, not paid twice
    store.close()
