"""`companion character` refuses before anything is spent, in one line naming the flag:
a --move without NAME=PROMPT, a move given twice, a move name no animation can take, a
--no-loop naming no move, a character file that is not a SpriteFrames; and a set over a
budget waits for --approve, which makes it paying exactly the quoted total. Against a
sandbox on loopback: its balance and its journal of creates."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.cli.main import main
from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.paid import creates

MOVES = ["--move", "idle=idle breathing", "--move", "attack=sword slash"]
SHORT = ["--seconds", "1", "--resolution", "360p", "--frame-count", "4"]


def _godot(tmp_path: Path) -> Path:
    project = tmp_path / "game"
    (project / "animations").mkdir(parents=True)
    (project / "project.godot").write_text("config_version=5\n")
    draw_character(64).save(project / "hero.png")
    return project


BAD_MOVES = [
    (["--move", "idle"], "--move 'idle': give NAME=PROMPT"),
    (["--move", "idle=a", "--move", "Idle=b"], "--move Idle: 'Idle' is given twice"),
    (["--move", "2x=a"], "--move 2x: '2x' is not usable as an animation name"),
    (["--move", "a/b=a"], "--move a/b: 'a/b' is not usable as an animation name"),
    (["--move", "idle=a", "--no-loop", "walk"], "--no-loop walk: no --move of that name"),
    (["--move", "idle=  "], "--move idle: idle: say what should move"),
    (["--move", "idle=a", "--formats", "gif"], "--formats: a character in a Godot project"),
]


def test_a_bad_move_is_refused_naming_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused before any service is asked (none is running here)."""
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COMPANION_BASE_URL", "http://127.0.0.1:9")
    project = _godot(tmp_path)
    for moves, said in BAD_MOVES:
        argv = ["character", str(project / "hero.png"), *moves, "--out", str(project / "x")]
        assert main(argv) == 2
        line = capsys.readouterr().err.strip().splitlines()[-1]
        assert line.startswith(f"companion: error: {said}"), line
    assert not (project / "x").exists()


@pytest.mark.slow
def test_a_set_over_a_budget_waits_for_approve_and_a_clash_is_refused(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    project = _godot(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("budgets:\n  per_job: 1000\n  per_day: 10\n")
    out = project / "animations"

    def character(*extra: str) -> tuple[int, str, str]:
        ran = companion(
            sandbox.base_url, home, "character", str(project / "hero.png"), *MOVES, *SHORT,
            "--out", str(out), "--json", *extra,
        )  # fmt: skip
        return ran.returncode, ran.stdout, ran.stderr

    (out / "hero.tres").write_text("[gd_scene format=3]\n")  # the user's, not a SpriteFrames
    code, _, stderr = character()
    assert code == 2 and "hero.tres is not a SpriteFrames" in stderr, stderr
    (out / "hero.tres").unlink()

    before = api.get("/credits/balance").json["available"]
    code, _, stderr = character()
    assert code == 4 and "over a budget" in stderr and "--approve" in stderr, stderr
    assert creates(sandbox) == [] and api.get("/credits/balance").json["available"] == before

    code, stdout, stderr = character("--approve")
    assert code == 0, stderr
    said = json.loads(stdout)
    spent = before - api.get("/credits/balance").json["available"]
    assert said["quoted"] == said["spent_now"] == spent > 10 and len(creates(sandbox)) == 2
    assert [(m["move"], m["loop"]) for m in said["moves"]] == [("idle", True), ("attack", False)]


@pytest.mark.slow
def test_a_set_killed_midway_is_finished_by_the_same_command_paying_once(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    """Killed after a create was sent, then while the moves install (other moves may be
    between moving a file in and recording it): the same command finishes every move,
    and the account paid each once."""
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    project = _godot(tmp_path)
    argv = [
        "character", str(project / "hero.png"), *MOVES, "--move", "walk=walk cycle", *SHORT,
        "--out", str(project / "animations"), "--json",
    ]  # fmt: skip
    before = api.get("/credits/balance").json["available"]
    for point in ("after_send", "mid_install"):
        killed = companion(sandbox.base_url, tmp_path / "home", *argv, crash=point)
        assert killed.returncode != 0
    ran = companion(sandbox.base_url, tmp_path / "home", *argv)
    assert ran.returncode == 0, ran.stderr
    said = json.loads(ran.stdout)
    assert [m["state"] for m in said["moves"]] == ["done", "done", "done"]
    assert len(creates(sandbox)) == 3
    made = sum(m["credits"] for m in said["moves"])
    assert before - api.get("/credits/balance").json["available"] == made > 0
    frames = (project / "animations" / "hero.tres").read_text()
    assert sorted(re.findall(r'"name": &"(\w+)"', frames)) == ["attack", "idle", "walk"]


def forget_unfinished_writes(home: Path) -> list[str]:
    """The store as a kill between moving a file in and recording it leaves it: the
    files the unfinished jobs moved in are in place, their records are not."""
    with sqlite3.connect(home / "companion.db") as db:
        jobs = [row[0] for row in db.execute("SELECT id FROM jobs WHERE state = 'installing'")]
        marks = ",".join("?" * len(jobs))
        paths = [
            row[0]
            for row in db.execute(f"SELECT path FROM written_files WHERE job_id IN ({marks})", jobs)
        ]
        db.execute(f"DELETE FROM written_files WHERE job_id IN ({marks})", jobs)
    return paths


@pytest.mark.slow
def test_a_set_killed_between_moving_a_file_in_and_recording_it_pays_once(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    """The moves whose files went in unrecorded are their jobs' to finish: the same
    command resumes them (no refusal of "a file not written by the companion")."""
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    project, home = _godot(tmp_path), tmp_path / "home"
    argv = [
        "character", str(project / "hero.png"), *MOVES, *SHORT,
        "--out", str(project / "animations"), "--json",
    ]  # fmt: skip
    before = api.get("/credits/balance").json["available"]
    killed = companion(sandbox.base_url, home, *argv, crash="mid_install")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert [p for p in forget_unfinished_writes(home) if Path(p).exists()], "nothing went in"
    ran = companion(sandbox.base_url, home, *argv)
    assert ran.returncode == 0, ran.stderr
    said = json.loads(ran.stdout)
    assert [m["state"] for m in said["moves"]] == ["done", "done"]
    assert len(creates(sandbox)) == 2
    made = sum(m["credits"] for m in said["moves"])
    assert before - api.get("/credits/balance").json["available"] == made > 0


@pytest.mark.slow
def test_an_animation_killed_between_moving_a_file_in_and_recording_it_pays_once(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    project, home = _godot(tmp_path), tmp_path / "home"
    argv = [
        "animate", str(project / "hero.png"), "--prompt", "idle breathing", *SHORT,
        "--formats", "godot_pack", "--out", str(project / "animations"), "--json",
    ]  # fmt: skip
    before = api.get("/credits/balance").json["available"]
    killed = companion(sandbox.base_url, home, *argv, crash="mid_install")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert [p for p in forget_unfinished_writes(home) if Path(p).exists()], "nothing went in"
    ran = companion(sandbox.base_url, home, *argv)
    assert ran.returncode == 0, ran.stderr
    assert "resuming job" in ran.stderr and len(creates(sandbox)) == 1
    spent = before - api.get("/credits/balance").json["available"]
    assert spent == json.loads(ran.stdout)["credits"] > 0
    assert (project / "animations" / "hero.tres").is_file()


def test_seamless_cuts_the_looping_moves_again_for_nothing(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    """--seamless is the set's local part: asked after the moves were made, it re-cuts
    their kept clips (nothing spent, no create), the looping move at its seam and the
    one that plays once whole."""
    sandbox = make_sandbox(task_seconds=0.2, journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    project, home = _godot(tmp_path), tmp_path / "home"

    def run(*extra: str) -> tuple[dict[str, Any], int]:
        before = api.get("/credits/balance").json["available"]
        ran = companion(
            sandbox.base_url, home, "character", str(project / "hero.png"), *MOVES, *SHORT,
            "--out", str(project / "animations"), "--json", *extra,
        )  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        return json.loads(ran.stdout), before - api.get("/credits/balance").json["available"]

    whole, spent = run()
    assert spent == whole["quoted"] > 0 and len(creates(sandbox)) == 2
    assert not any("seamless" in m for m in whole["moves"]), whole
    seamless, spent = run("--seamless")
    assert spent == 0 and seamless["quoted"] == 0 and len(creates(sandbox)) == 2, seamless
    by_move = {m["move"]: m for m in seamless["moves"]}
    assert "seamless" not in by_move["attack"], by_move["attack"]
    assert by_move["idle"]["loop"] is True and by_move["attack"]["loop"] is False
    assert by_move["idle"]["seamless"]["seam"] >= 0, by_move["idle"]
