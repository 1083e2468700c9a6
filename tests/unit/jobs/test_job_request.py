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
from PIL import Image

from companion.api.client import Client
from companion.api.keys import new_idempotency_key
from companion.api.schema import ModelsResponse
from companion.cli.commands.animate import _request, plan_from_args
from companion.cli.main import build_parser
from companion.daemon.inbox.prepare import DropReader
from companion.daemon.inbox.watch import ProjectWatcher
from companion.install import Placement
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


DAEMON_BODY = {
    "image_path": "inbox/hero.png",
    "prompt": "wave",
    "video": {"duration_seconds": 1, "resolution": "360p"},
    "export": {
        "frame_count": 4,
        "output_width": 64,
        "output_height": 64,
        "output_formats": ["spritesheet"],
    },
}


def _daemon_request(
    home: Path, base_url: str, project: Path, body: dict[str, Any] = DAEMON_BODY
) -> dict[str, Any]:
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
        accepted = post("/api/v1/animate", {"project_root": str(project), **body})
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


# Pictures by fixed bytes, a fixed name and target: the fingerprint and generation pinned
# below are those of the request each door stores, whatever this run's folder.
FIXED_HASHES = ["1" * 64, "2" * 64, "3" * 64, "4" * 64]


def _kept(stored: dict[str, Any], folder: Path) -> tuple[str, str, str]:
    """The digest of the JSON the store keeps for a request (this run's folder written as
    TMP; its own fingerprint and generation, which hash this run's paths and bytes, left
    out), and the fingerprint and generation the same request has for fixed pictures."""
    request = JobRequest.of(stored)
    assert request.stored() == stored  # read back as it was kept
    kept = {k: v for k, v in stored.items() if k not in ("fingerprint", "generation")}
    text = json.dumps(kept).replace(str(folder), "TMP")  # as companion.store.db writes it
    pictures = FIXED_HASHES[: 1 + bool(request.last_frame) + len(request.references)]
    marked = request.with_fingerprint(pictures, "hero", "/game/animations")
    return (
        hashlib.sha256(text.encode()).hexdigest(),
        str(marked.fingerprint),
        str(marked.generation),
    )


def _pictures(folder: Path) -> tuple[Path, Path, Path]:
    """A transparent first frame, a last one, and an opaque reference."""
    folder.mkdir(parents=True, exist_ok=True)
    draw_character(64).save(folder / "hero.png")
    draw_character(96).save(folder / "last.png")
    Image.new("RGB", (80, 80), (200, 120, 40)).save(folder / "ref1.png")
    return folder / "hero.png", folder / "last.png", folder / "ref1.png"


# What each door stored before its call became one typed ask: a job recorded by that
# release must be found again (its fingerprint equal) and read back by this one.
PINNED = {
    # The 64 px pictures of the first doors are sprites, pixel art unasked: what is
    # kept and the job's fingerprint say so, while every generation (the third,
    # what is paid) is the one before: a job recorded before is re-cut, never paid
    # again. The daemon's and the drop's ask for the service's own export, which
    # a default does not override: as they were.
    "animate": (
        "c7e4dd23465cb17e1836e57474c5ea1807e7f2dd59d7ffe30d9dcbf62558378f",
        "e63e64e7b306644203f90f43b30236e01a48dfc1acccbe3c4a90b51b39c813cc",
        "971ceea3e6639c9f213a651939ecb33295917c6b1a37c7bd6b70b925e08afaec",
    ),
    "animate_plain": (
        "d4b3f2bccd94537e2d974c2baebec7f806b2fae04e78563e4addf3afddce2fe7",
        "9d05f80ee19651e90c5dc7a4032ae5a5376ead9d96607c4b378d58d172a14a3a",
        "13ee9193fef87d7d4d2b795ad661f1fc52e2aaa333a61173adb7dcf5dc709a4a",
    ),
    "jobs_add": (
        "9ae1830fc53ddf9c06cfe19e0503a39e5082c8f8e3718fa0e15cbe31b11bc529",
        "4d0ef2e7743bbeeed56577b22fbf05faba764dfb2b0b4f4e5f66ae80be56796c",
        "df16b43862625aa3cdf185a149f0102d343fdeb02726dbfc83fe51040c6118ea",
    ),
    "character_idle": (
        "f094dd2214f1bcc37387a7d81b6dd625bfc9110386b46106b0923f243c0650bc",
        "550c9afac0d46ab5ebae528c363383d7bb6017ab16392b76de089bd280b58782",
        "81a6378d3eb129252b5a16f0566a829f901d45380a66b6e560eed31b7767467f",
    ),
    "character_attack": (
        "2a4e08de52234c38720c3c84e06958281b478570c9714f68d0a7973b8e454790",
        "8d16870638903f1196d2e87a5ff53098c9302c78f124b7e7c33b7a6f3cebae52",
        "26d08c4ff03b6fd76f1e5f979b25e95106087405af296dbbf6fb1e0e926a0030",
    ),
    "daemon": (
        "dd95f60ced2f378e75bc7ed48a1fedb1b086f699205f5d2672ae1d2e44963fce",
        "78632cb213960822b280194346f932411b35d2bc0629d54bc38b4a7e3d86eeae",
        "41f3efe5e2d954aa84fb71015a87c0c4b7977545f33c5a8f3e273642725c8898",
    ),
    "drop": (
        "381747085718dd0afe8ba090df6094fb1d71eeda52ad419afbf13e9ebcad4cb5",
        "c71717cc176d00fd2d2f67d844d07ec139a093da5ad3aad9c2f1666eee64ab0d",
        "5852b64de69ae3afe5abf732c821feb85a175564851f4a3b7724a4a70fc43526",
    ),
}


def test_each_door_stores_the_request_it_stored_before(
    make_sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    from companion.cli.commands import character
    from companion.cli.main import main

    sandbox = make_sandbox()
    folder = tmp_path.resolve()
    monkeypatch.setenv("COMPANION_HOME", str(folder / "home"))
    monkeypatch.setenv("COMPANION_BASE_URL", "http://127.0.0.1:9")  # nothing is asked of it
    game = folder / "game"
    game.mkdir()
    (game / "project.godot").write_text("config_version=5\n")
    hero, last, ref = _pictures(game / "art")
    target = game / "animations"
    made: dict[str, dict[str, Any]] = {}
    parse = build_parser().parse_args

    # companion animate: every picture, the model named, finishing and frames said
    args = parse(
        ["animate", str(hero), "--prompt", "wave", "--last-frame", str(last), "--ref",
         str(ref), "--model", "sandbox-motion-lite", "--seed", "7", "--seconds", "1",
         "--resolution", "360p", "--frame-count", "4", "--width", "32", "--height", "32",
         "--transparent", "--key-color", "#00ff00", "--in-place", "--loop", "auto",
         "--trim", "--formats", "godot_pack,gif", "--start", "0.2", "--duration", "0.5",
         "--out", str(target), "--name", "hero"]
    )  # fmt: skip
    where = Placement("godot", game, target)
    made["animate"] = _request(plan_from_args(args), FIXED_HASHES[:3], where).stored()
    # ... and an opaque picture into a plain folder, the service's own export bought
    plain = folder / "plain"
    plain.mkdir()
    Image.new("RGB", (120, 90), (10, 90, 200)).save(plain / "sky.png")
    args = parse(
        ["animate", str(plain / "sky.png"), "--prompt", "clouds drift", "--opaque",
         "--service-export", "--formats", "spritesheet,spritesheet_json", "--frame-count",
         "6", "--out", str(plain / "out")]
    )  # fmt: skip
    made["animate_plain"] = _request(plan_from_args(args), FIXED_HASHES[:1], None).stored()

    # companion jobs add: the job it records, into the Godot project
    assert main(
        ["jobs", "add", str(hero), "--prompt", "walk cycle", "--last-frame", str(last),
         "--ref", str(ref), "--model", "sandbox-motion-lite", "--transparent", "--no-trim",
         "--formats", "godot_pack", "--frame-count", "6", "--target", str(target),
         "--name", "hero"]
    ) == 0  # fmt: skip
    store = Store(folder / "home" / "companion.db")
    try:
        made["jobs_add"] = store.jobs()[0].request
    finally:
        store.close()

    # companion character: one request per move, the set's finishing on each
    args = parse(
        ["character", str(hero), "--move", "idle=idle breathing", "--move",
         "attack=sword slash", "--model", "sandbox-motion-lite", "--transparent",
         "--seamless", "--in-place", "--seed", "11", "--frame-count", "4", "--out",
         str(target), "--name", "knight"]
    )  # fmt: skip
    for move in character.plan_from_args(args).jobs:
        made[f"character_{move.move.name}"] = move.request.stored()

    # the daemon's API: a negative prompt, every picture, small frames, finishing said
    project = folder / "project"
    _pictures(project / "inbox")
    body = {
        "image_path": "inbox/hero.png",
        "last_frame_path": "inbox/last.png",
        "reference_paths": ["inbox/ref1.png"],
        "prompt": "wave",
        "negative_prompt": "blur",
        "video": {"duration_seconds": 1, "resolution": "360p", "seed": 3},
        "export": {
            "frame_count": 4,
            "output_width": 32,
            "output_height": 48,
            "output_formats": ["spritesheet", "spritesheet_json"],
        },
        "in_place": True,
        "loop": True,
        "service_export": True,
    }
    made["daemon"] = _daemon_request(folder / "daemon-home", sandbox.base_url, project, body)

    # a watched inbox: a folder of frames with its settings, over the project's defaults
    drop = project / "inbox" / "jump"
    drop.mkdir()
    for name, picture in zip(("first", "last", "ref1"), _pictures(drop / "made"), strict=True):
        picture.rename(drop / f"{name}.png")
    (drop / "made").rmdir()
    (drop / "animation.yaml").write_text(
        "prompt: jump\nvideo: {duration_seconds: 1}\ntrim: true\nservice_export: true\n"
        "export: {frame_count: 5, output_width: 40, output_formats: [gif, frames_zip]}\n"
    )
    listed = ModelsResponse.model_validate(Api(sandbox.base_url, key=TEST_KEY).get("/models").json)
    reader = DropReader(
        project, project / "inbox", project / "animations", "other",
        {"selection": {"mode": "range", "start_seconds": 0.1}}, lambda: listed,
    )  # fmt: skip
    made["drop"] = reader.prepare(drop).request.stored()

    kept = {door: _kept(stored, folder) for door, stored in made.items()}
    assert kept == PINNED, json.dumps(made, indent=1)


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
