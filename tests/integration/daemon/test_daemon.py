"""The daemon's localhost API: security first, then animate end to end with SSE."""

from __future__ import annotations

import base64
import http.client
import json
import os
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from companion.media.demo_art import draw_character
from tests.conftest import TEST_KEY
from tests.support.calls import request
from tests.support.daemon import DaemonThread, call


def test_daemon_file_is_private_and_complete(daemon: DaemonThread) -> None:
    path = daemon.home / "daemon.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    info = daemon.info
    assert info["pid"] == os.getpid() and info["port"] > 0 and len(info["token"]) >= 32


@pytest.mark.parametrize(
    "headers,token,status,code",
    [
        ({}, None, 401, "BAD_TOKEN"),
        ({}, "wrong-token", 401, "BAD_TOKEN"),
        ({"Host": "evil.example:80"}, "default", 421, "BAD_HOST"),
        ({"Host": "127.0.0.1"}, "default", 421, "BAD_HOST"),
        ({"Origin": "https://evil.example"}, "default", 403, "FOREIGN_ORIGIN"),
        ({"Origin": "null"}, "default", 403, "FOREIGN_ORIGIN"),
    ],
)
def test_security_refusals(
    daemon: DaemonThread, headers: dict[str, str], token: str | None, status: int, code: str
) -> None:
    reply = call(daemon, "GET", "/api/v1/jobs", headers=headers, token=token)
    assert reply.status == status and reply.error["code"] == code
    assert TEST_KEY not in reply.body.decode()


def test_bodies_are_capped_and_checked(daemon: DaemonThread) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", daemon.info["port"], timeout=10)
    connection.putrequest("POST", "/api/v1/animate")
    connection.putheader("Authorization", f"Bearer {daemon.info['token']}")
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Content-Length", str(64 * 2**20))
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 413 and json.loads(response.read())["error"]["code"] == "TOO_LARGE"
    connection.close()
    bad = request(
        "POST",
        daemon.url + "/api/v1/animate",
        body=b"{nope",
        headers={
            "Authorization": f"Bearer {daemon.info['token']}",
            "Content-Type": "application/json",
        },
    )
    assert bad.status == 400 and bad.error["code"] == "BAD_JSON"
    assert (
        call(daemon, "POST", "/api/v1/animate", {"project_root": "/x", "surprise": 1}).status == 400
    )
    assert call(daemon, "GET", "/api/v1/nothing").status == 404
    assert call(daemon, "DELETE", "/api/v1/jobs").status == 405


def test_projects_confine_paths(daemon: DaemonThread, tmp_path: Path) -> None:
    project = tmp_path / "game"
    (project / "art").mkdir(parents=True)
    draw_character(64).save(project / "art" / "hero.png")
    (project / "project.godot").write_text("config_version=5\n")
    outside = tmp_path / "secret.png"
    draw_character(64).save(outside)
    base = {"project_root": str(project), "prompt": "idle"}
    assert (
        call(daemon, "POST", "/api/v1/animate", {**base, "image_path": "art/hero.png"}).error[
            "code"
        ]
        == "PROJECT_NOT_REGISTERED"
    )
    assert (
        call(daemon, "POST", "/api/v1/projects", {"root": str(project), "engine": "godot"}).status
        == 201
    )
    for path in ("../secret.png", str(outside), "art/../../secret.png"):
        reply = call(daemon, "POST", "/api/v1/animate", {**base, "image_path": path})
        assert reply.status == 400 and "is outside it" in reply.error["message"], path
    for path, what in (("art/missing.png", "does not exist"), ("art", "is a folder")):
        reply = call(daemon, "POST", "/api/v1/animate", {**base, "image_path": path})
        assert reply.status == 400, path
        assert (
            reply.error["message"]
            == f"image_path: {path} {what} in the project; give a picture's path"
        )
    reply = call(
        daemon,
        "POST",
        "/api/v1/animate",
        {**base, "image_path": "art/hero.png", "target_folder": "../../elsewhere"},
    )
    assert reply.status == 400 and "target_folder" in reply.error["message"]


def test_registering_again_merges_the_defaults_one_level_deep(
    daemon: DaemonThread, tmp_path: Path
) -> None:
    project = tmp_path / "game"
    project.mkdir()
    export = {"frame_count": 4, "output_formats": ["spritesheet", "spritesheet_json"]}
    video = {"duration_seconds": 1}

    def register(defaults: dict[str, Any]) -> dict[str, Any]:
        reply = call(
            daemon, "POST", "/api/v1/projects", {"root": str(project), "defaults": defaults}
        )
        assert reply.status == 201, reply.body
        listed = call(daemon, "GET", "/api/v1/projects").json["data"]
        return dict(next(p for p in listed if p["root"] == str(project.resolve()))["defaults"])

    assert register({"prompt": "idle", "export": export, "video": video}) == {
        "prompt": "idle",
        "export": export,
        "video": video,
    }
    # A key given replaces that key whole; the others are kept.
    assert register({"prompt": "wave"}) == {"prompt": "wave", "export": export, "video": video}
    assert register({"export": {"frame_count": 8}}) == {
        "prompt": "wave",
        "export": {"frame_count": 8},
        "video": video,
    }
    # A key given as null is dropped; an empty mapping changes nothing.
    assert register({"video": None}) == {"prompt": "wave", "export": {"frame_count": 8}}
    assert register({}) == {"prompt": "wave", "export": {"frame_count": 8}}


def test_engine_rules_are_checked_before_anything_is_spent(
    daemon: DaemonThread, tmp_path: Path
) -> None:
    project = tmp_path / "unity-game"
    (project / "Assets" / "Art").mkdir(parents=True)
    (project / "ProjectSettings").mkdir()
    draw_character(64).save(project / "Assets" / "Art" / "hero.png")
    outside = {"root": str(project), "engine": "unity", "target": "Library/anims"}
    reply = call(daemon, "POST", "/api/v1/projects", outside)
    assert reply.status == 400 and "Assets" in reply.error["message"]
    reply = call(daemon, "POST", "/api/v1/projects", {"root": str(project), "engine": "unity"})
    assert reply.status == 201 and reply.json["target"] == "Assets/Animations"
    base = {"project_root": str(project), "image_path": "Assets/Art/hero.png"}
    for unsaid in ({}, {"prompt": "  "}):  # no motion asked for: refused, not paid for
        for path in ("/api/v1/quote", "/api/v1/animate"):
            reply = call(daemon, "POST", path, {**base, **unsaid})
            assert reply.status == 400 and reply.error["message"].startswith("prompt: ")
    base["prompt"] = "idle"
    reply = call(daemon, "POST", "/api/v1/animate", {**base, "target_folder": "Temp"})
    assert reply.status == 400 and "Assets" in reply.error["message"]
    # A one-click animation takes a frame count; fps is for independent exports.
    reply = call(daemon, "POST", "/api/v1/quote", {**base, "export": {"fps": 12}})
    assert reply.status == 400 and "frame_count" in reply.error["message"]
    assert call(daemon, "GET", "/api/v1/jobs").json["data"] == []


def read_events(daemon: DaemonThread, sink: list[dict[str, Any]], until: threading.Event) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", daemon.info["port"], timeout=60)
    connection.request(
        "GET", "/api/v1/events", headers={"Authorization": f"Bearer {daemon.info['token']}"}
    )
    response = connection.getresponse()
    assert response.status == 200
    while not until.is_set():
        line = response.readline().decode().strip()
        if line.startswith("data: "):
            sink.append(json.loads(line[6:]))
    connection.close()


def test_animate_end_to_end_with_progress_events(daemon: DaemonThread, tmp_path: Path) -> None:
    project = tmp_path / "game"
    (project / "art").mkdir(parents=True)
    (project / "project.godot").write_text("config_version=5\n")
    draw_character(64).save(project / "art" / "hero.png")
    call(
        daemon,
        "POST",
        "/api/v1/projects",
        {"root": str(project), "engine": "godot", "target": "animations"},
    )
    events: list[dict[str, Any]] = []
    done = threading.Event()
    reader = threading.Thread(target=read_events, args=(daemon, events, done), daemon=True)
    reader.start()
    time.sleep(0.3)
    body = {
        "project_root": str(project),
        "image_path": "art/hero.png",
        "prompt": "idle",
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "export": {
            "frame_count": 4,
            "output_width": 64,
            "output_height": 64,
            "output_formats": ["spritesheet", "spritesheet_json", "godot_pack"],
        },
    }
    quote = call(daemon, "POST", "/api/v1/quote", body)
    assert quote.status == 200 and quote.json["credits"] > 0
    accepted = call(daemon, "POST", "/api/v1/animate", body)
    assert accepted.status == 202, accepted.body
    job_id = accepted.json["id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = call(daemon, "GET", f"/api/v1/jobs/{job_id}").json
        if job["state"] in ("done", "failed", "cancelled"):
            break
        time.sleep(0.1)
    time.sleep(0.3)
    done.set()
    assert job["state"] == "done", job
    files = sorted(p.name for p in (project / "animations").iterdir() if not p.name.startswith("."))
    # A Godot project gets the pack unpacked, its .tres pointing where the sheet landed;
    # the video the service also returns was not asked for, so it stays at the service.
    assert files == ["hero.json", "hero.png", "hero.tres"]
    assert job["resource"] == "res://animations/hero.tres"
    tres = (project / "animations" / "hero.tres").read_text()
    assert 'path="res://animations/hero.png"' in tres
    mine = [e for e in events if e["id"] == job_id]
    states = [e["state"] for e in mine]
    assert states[0] == "new" and states[-1] == "done" and "running" in states
    progress = [e["progress"] for e in mine if e["state"] == "running"]
    assert progress == sorted(progress) and progress[-1] == 1
    status = call(daemon, "GET", "/api/v1/status").json
    assert status["mode"] == "live" and status["jobs"]["done"] == 1 and status["balance"] > 0
    assert call(daemon, "GET", "/api/v1/openapi.json").json["openapi"] == "3.1.0"


def test_inline_images(daemon: DaemonThread, tmp_path: Path) -> None:
    project = tmp_path / "game"
    project.mkdir()
    call(daemon, "POST", "/api/v1/projects", {"root": str(project)})
    png = tmp_path / "i.png"
    draw_character(64).save(png)
    body = {
        "project_root": str(project),
        "prompt": "idle",
        "image_base64": base64.b64encode(png.read_bytes()).decode(),
    }
    assert call(daemon, "POST", "/api/v1/quote", body).status == 200
    body["image_base64"] = base64.b64encode(b"not an image").decode()
    assert call(daemon, "POST", "/api/v1/quote", body).status == 415
    body["image_base64"] = "%%%"
    assert call(daemon, "POST", "/api/v1/quote", body).status == 400


def test_stops_promptly_with_an_event_stream_open(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox()
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    connection = http.client.HTTPConnection("127.0.0.1", running.info["port"], timeout=30)
    connection.request(
        "GET", "/api/v1/events", headers={"Authorization": f"Bearer {running.info['token']}"}
    )
    assert connection.getresponse().status == 200
    started = time.monotonic()
    running.stop()
    assert time.monotonic() - started < 10
    assert not (tmp_path / "home" / "daemon.json").exists()
    connection.close()


def test_a_project_root_naming_an_unknown_user_is_a_clear_400(daemon: DaemonThread) -> None:
    reply = call(
        daemon, "POST", "/api/v1/projects", {"root": "~no-such-user-here/game", "engine": "godot"}
    )
    assert reply.status == 400
    assert "root" in reply.json["error"]["message"]
