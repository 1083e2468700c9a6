"""A hostile caller and a hostile drop folder: the daemon answers JSON, keeps serving,
and never takes what it should not."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.calls import Reply, request
from tests.support.daemon import DaemonThread, call

DEEP_ARRAYS = b"[" * 200_000
DEEP_OBJECTS = b'{"a":' * 40_000 + b"1" + b"}" * 40_000
NESTED_FIELD = b'{"root": "/x", "defaults": ' + b'{"a":' * 200 + b"1" + b"}" * 201


@pytest.mark.parametrize("path", ["/api/v1/animate", "/api/v1/quote", "/api/v1/projects"])
@pytest.mark.parametrize("body", [DEEP_ARRAYS, DEEP_OBJECTS, NESTED_FIELD])
def test_pathological_json_is_a_json_400(daemon: DaemonThread, path: str, body: bytes) -> None:
    reply = request(
        "POST",
        daemon.url + path,
        body=body,
        headers={
            "Authorization": f"Bearer {daemon.info['token']}",
            "Content-Type": "application/json",
        },
    )
    assert reply.headers.get("content-type", "").startswith("application/json"), reply.body[:200]
    assert reply.status == 400, reply.body[:300]
    assert reply.error["code"] == "TOO_DEEP" and "32 levels" in reply.error["message"]


def test_a_registration_body_is_small(daemon: DaemonThread, tmp_path: Path) -> None:
    body = b'{"root": "/x", "defaults": {"prompt": "' + b"a" * 300_000 + b'"}}'
    reply = request(
        "POST",
        daemon.url + "/api/v1/projects",
        body=body,
        headers={
            "Authorization": f"Bearer {daemon.info['token']}",
            "Content-Type": "application/json",
        },
    )
    assert reply.status == 413 and reply.error["code"] == "TOO_LARGE"


def register(daemon: DaemonThread, body: dict[str, Any]) -> Reply:
    return call(daemon, "POST", "/api/v1/projects", body)


def test_only_a_real_project_folder_is_a_root(daemon: DaemonThread, tmp_path: Path) -> None:
    for root in ("/", str(Path.home()), "/etc", "/usr/share", "/tmp"):
        reply = register(daemon, {"root": root})
        assert reply.status == 400, root
        assert reply.error["message"].startswith("root: "), reply.error
        assert "give the project's own folder" in reply.error["message"]
    plain = tmp_path / "plain"
    plain.mkdir()
    reply = register(daemon, {"root": str(plain), "engine": "godot"})
    assert reply.status == 400 and "project.godot" in reply.error["message"]
    reply = register(daemon, {"root": str(plain), "engine": "unity"})
    assert reply.status == 400 and "Assets" in reply.error["message"]
    (plain / "Assets").mkdir()
    reply = register(daemon, {"root": str(plain), "engine": "unity"})
    assert reply.status == 400 and "ProjectSettings" in reply.error["message"]
    assert register(daemon, {"root": str(plain)}).status == 201  # a plain folder is fine
    assert [p["root"] for p in call(daemon, "GET", "/api/v1/projects").json["data"]] == [
        str(plain.resolve())
    ]


def test_registering_again_keeps_every_setting_not_given(
    daemon: DaemonThread, tmp_path: Path
) -> None:
    project = tmp_path / "game"
    (project / "art").mkdir(parents=True)
    (project / "project.godot").write_text("config_version=5\n")
    defaults = {"prompt": "idle", "export": {"frame_count": 4}}
    full = {
        "root": str(project),
        "engine": "godot",
        "target": "art/anims",
        "inbox": "drops",
        "defaults": defaults,
    }
    assert register(daemon, full).status == 201
    # The plugins register again when their text of the root differs from the daemon's
    # (a symlinked folder, /tmp vs /private/tmp, drive-letter case).
    link = tmp_path / "link"
    link.symlink_to(project)
    for again in ({"root": str(link)}, {"root": str(project / "art" / "..")}):
        reply = register(daemon, again)
        assert reply.status == 201, reply.body
        assert reply.json["target"] == "art/anims" and reply.json["inbox"] == "drops"
        assert reply.json["engine"] == "godot"
    listed = call(daemon, "GET", "/api/v1/projects").json["data"]
    assert len(listed) == 1
    assert listed[0]["inbox"] == "drops" and listed[0]["defaults"] == defaults
    assert listed[0]["target"] == "art/anims" and listed[0]["engine"] == "godot"
    # What is given changes; the rest stays.
    reply = register(daemon, {"root": str(project), "target": "animations"})
    listed = call(daemon, "GET", "/api/v1/projects").json["data"]
    assert listed[0]["target"] == "animations" and listed[0]["defaults"] == defaults


def test_config_projects_are_checked_at_start(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    good = tmp_path / "good"
    good.mkdir()
    (good / "project.godot").write_text("config_version=5\n")
    home = tmp_path / "home"
    home.mkdir()
    projects = [
        {"root": "/", "engine": "other"},
        {"root": str(tmp_path / "nothing-here"), "engine": "godot"},
        {"root": str(good), "engine": "godot", "inbox": "../../outside"},
        {"root": str(good), "engine": "godot", "inbox": "inbox"},
    ]
    (home / "config.yaml").write_text(yaml.safe_dump({"projects": projects}))
    sandbox = make_sandbox()
    with caplog.at_level(logging.ERROR, logger="companion.daemon"):
        running = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        listed = call(running, "GET", "/api/v1/projects").json["data"]
        assert [p["root"] for p in listed] == [str(good.resolve())]
        assert listed[0]["inbox"] == "inbox"
        skipped = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
        assert len(skipped) == 3 and "whole disk" in skipped[0], skipped
        assert "inbox: ../../outside must stay inside" in skipped[2]
    finally:
        running.stop()
