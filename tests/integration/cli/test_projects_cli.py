"""`companion projects add|list|remove` against a running daemon, and a project added to
config.yaml while the daemon runs, taken without a restart."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.cli import environment
from tests.support.daemon import DaemonThread, call


def godot_project(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "project.godot").write_text("config_version=5\n")
    return folder


def projects(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", "projects", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


@pytest.mark.slow
def test_add_list_remove_through_the_daemon(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    home = tmp_path / "home"
    env = environment(sandbox.base_url, home)
    game = godot_project(tmp_path / "game")
    assert json.loads(projects(env, "list", "--json").stdout) == {"data": []}
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        added = projects(
            env, "add", str(game), "--engine", "godot", "--inbox", "drop",
            "--defaults", '{"prompt": "idle"}',
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        assert f"registered {game.resolve()} (godot)" in added.stdout
        assert "watching" in added.stdout
        assert daemon.daemon is not None and str(game.resolve()) in daemon.daemon.watchers
        listed = json.loads(projects(env, "list", "--json").stdout)["data"]
        assert [(p["root"], p["engine"], p["inbox"], p["defaults"]) for p in listed] == [
            (str(game.resolve()), "godot", "drop", {"prompt": "idle"})
        ]
        # The daemon's own checks, named with the field and what to do.
        plain = tmp_path / "not-a-game"
        plain.mkdir()
        refused = projects(env, "add", str(plain), "--engine", "godot")
        assert refused.returncode == 2, refused.stderr
        assert "is not a Godot project" in refused.stderr
        # No --engine: the folder's own, read from its markers; a plain folder is other.
        unity = tmp_path / "unity-game"
        (unity / "Assets").mkdir(parents=True)
        (unity / "ProjectSettings").mkdir()
        for folder, engine in ((unity, "unity"), (plain, "other")):
            found = projects(env, "add", str(folder))
            assert found.returncode == 0, found.stderr
            assert f"registered {folder.resolve()} ({engine})" in found.stdout
            assert projects(env, "remove", str(folder)).returncode == 0
        removed = projects(env, "remove", str(game))
        assert removed.returncode == 0, removed.stderr
        assert str(game.resolve()) not in daemon.daemon.watchers
        assert call(daemon, "GET", "/api/v1/projects").json["data"] == []
        again = projects(env, "remove", str(game))
        assert again.returncode == 2 and "is not a registered project" in again.stderr
    finally:
        daemon.stop()


def test_a_project_added_to_config_yaml_is_taken_while_the_daemon_runs(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    home = tmp_path / "home"
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        game = godot_project(tmp_path / "game")
        (home / "config.yaml").write_text(
            f"projects:\n  - root: {json.dumps(str(game))}\n    engine: godot\n    inbox: drop\n"
        )
        deadline = time.monotonic() + 15
        while not call(daemon, "GET", "/api/v1/projects").json["data"]:
            assert time.monotonic() < deadline, "config.yaml's project was never taken"
            time.sleep(0.2)
        listed = call(daemon, "GET", "/api/v1/projects").json["data"]
        assert [(p["root"], p["inbox"]) for p in listed] == [(str(game.resolve()), "drop")]
        while daemon.daemon is not None and str(game.resolve()) not in daemon.daemon.watchers:
            assert time.monotonic() < deadline, "its inbox was never watched"
            time.sleep(0.1)
        # Removed from the command line while config.yaml still lists it: said.
        env = environment(sandbox.base_url, home)
        removed = projects(env, "remove", str(game))
        assert removed.returncode == 0, removed.stderr
        assert "listed in" in removed.stdout and "config.yaml" in removed.stdout
    finally:
        daemon.stop()


@pytest.mark.slow
def test_add_and_remove_with_the_daemon_stopped(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    home = tmp_path / "home"
    env = environment(sandbox.base_url, home)
    game = godot_project(tmp_path / "game")
    added = projects(
        env, "add", str(game), "--engine", "godot", "--inbox", "drop",
        "--defaults", '{"prompt": "idle", "export": {"frame_count": 8}}',
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert "the daemon serves it when it starts" in added.stdout
    assert "no prompt" not in added.stderr
    # Registering again changes only what is given; defaults merge one level deep.
    again = projects(env, "add", str(game), "--defaults", '{"prompt": "walk"}')
    assert again.returncode == 0, again.stderr
    listed = json.loads(projects(env, "list", "--json").stdout)["data"]
    assert [(p["engine"], p["inbox"], p["defaults"]) for p in listed] == [
        ("godot", "drop", {"prompt": "walk", "export": {"frame_count": 8}})
    ]
    # The same checks as the daemon's: a folder that is no Godot project, an inbox outside.
    plain = tmp_path / "not-a-game"
    plain.mkdir()
    refused = projects(env, "add", str(plain), "--engine", "godot")
    assert refused.returncode == 2 and "is not a Godot project" in refused.stderr
    outside = projects(env, "add", str(game), "--inbox", "../elsewhere")
    assert outside.returncode == 2 and "inbox" in outside.stderr
    # An inbox whose drops have no prompt to go by is said at once, not at the first drop.
    other = godot_project(tmp_path / "other")
    unprompted = projects(env, "add", str(other), "--engine", "godot", "--inbox", "drop")
    assert unprompted.returncode == 0, unprompted.stderr
    assert "defaults have no prompt" in unprompted.stderr and "--defaults" in unprompted.stderr
    assert projects(env, "remove", str(other)).returncode == 0
    # The daemon started afterwards serves and watches it.
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        assert daemon.daemon is not None and str(game.resolve()) in daemon.daemon.watchers
    finally:
        daemon.stop()
    removed = projects(env, "remove", str(game))
    assert removed.returncode == 0, removed.stderr
    assert json.loads(projects(env, "list", "--json").stdout) == {"data": []}
    gone = projects(env, "remove", str(game))
    assert gone.returncode == 2 and "is not a registered project" in gone.stderr
