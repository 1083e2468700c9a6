"""Pay only for what stays: a job whose outputs are made here (frames smaller than the
service makes, a Godot project's finished pack) buys the video alone, a video
generation, and exports its files here from it. On a service that returns only the
formats a one-click asked for (the latitude face) such a job was paid, then failed "has
no kept video"; on either face it paid for an export it threw away."""

from __future__ import annotations

import json
import math
import signal
from pathlib import Path
from typing import Any

import pytest

from companion.media.demo_art import draw_character
from tests.conftest import TEST_KEY, both_faces
from tests.support.alpha import frame_sizes
from tests.support.calls import Api
from tests.support.cli import companion, tasks
from tests.support.daemon import DaemonThread, body, call, godot_project, wait_final

pytestmark = [pytest.mark.slow, both_faces]

QUICK = ["--prompt", "idle", "--frame-count", "4", "--seconds", "1", "--resolution", "360p"]
SHEET = ["--formats", "spritesheet,spritesheet_json"]
GODOT = ["--formats", "spritesheet,spritesheet_json,godot_pack", "--width", "64"]
GODOT += ["--height", "64"]


def paid_creates(sandbox: Any) -> list[str]:
    entries = sandbox.call(lambda: list(sandbox.service.journal.entries))
    return [e.path for e in entries if e.method == "POST" and e.status == 202]


def video_price(api: Api, task: dict[str, Any]) -> int:
    """What the sandbox asks for the video alone of task (spec 4.4's generation quote)."""
    quote = {"video": task["normalized_input"]["video"]}
    credits: int = api.post("/video-generations/quote", quote).json["credits"]
    return credits


def as_created(sandbox: Any, quoted: int) -> int:
    """What the sandbox holds at create for a quote (the latitude face recalculates the
    price: spec 4.4)."""
    rise = sandbox.service.face.create_price_rise
    if not rise:
        return quoted
    change = max(1, math.ceil(quoted * abs(rise)))
    return quoted + change if rise > 0 else quoted - min(change, quoted - 1)


def assert_bought_the_video_alone(sandbox: Any, api: Api, spent: int) -> None:
    [task] = tasks(api)
    assert task["object"] == "video_generation" and task["status"] == "succeeded"
    assert paid_creates(sandbox) == ["/v1/video-generations"]  # no one-click
    price = as_created(sandbox, video_price(api, task))
    assert spent == task["credits"]["charged"] == price > 0


def test_a_32_px_picture_buys_the_video_alone(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    small = tmp_path / "imp.png"
    draw_character(32).save(small)
    out = tmp_path / "out"
    before = api.get("/credits/balance").json["available"]
    made = companion(sandbox.base_url, tmp_path / "home", "animate", str(small), *QUICK,
                     *SHEET, "--out", str(out), "--json")  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert frame_sizes(out / "imp.json") == {(32, 32)}
    spent = before - api.get("/credits/balance").json["available"]
    assert_bought_the_video_alone(sandbox, api, spent)
    assert json.loads(made.stdout.strip().splitlines()[-1])["spent_now"] == spent
    books = companion(sandbox.base_url, tmp_path / "home", "credits", "--json")
    assert books.returncode == 0, books.stderr
    assert str(spent) in books.stdout


def test_a_godot_pack_buys_the_video_alone(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    game = tmp_path / "game"
    out = game / "animations"
    out.mkdir(parents=True)
    (game / "project.godot").write_text("config_version=5\n")
    draw_character(64).save(game / "hero.png")
    before = api.get("/credits/balance").json["available"]
    made = companion(sandbox.base_url, tmp_path / "home", "animate", str(game / "hero.png"),
                     *QUICK, *GODOT, "--out", str(out))  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert (out / "hero.tres").is_file() and (out / "hero.png").is_file()
    spent = before - api.get("/credits/balance").json["available"]
    assert_bought_the_video_alone(sandbox, api, spent)


def test_the_daemon_quotes_and_buys_the_video_alone(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(task_seconds=0.3, journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        asked = body(project, "walk")
        quote = call(daemon, "POST", "/api/v1/quote", asked)
        assert quote.status == 200, quote.body
        assert quote.json["buys"] == "video_generation"
        before = api.get("/credits/balance").json["available"]
        started = call(
            daemon, "POST", "/api/v1/animate", {**asked, "quote_id": quote.json["quote_id"]}
        )
        assert started.status == 202, started.body
        done = wait_final(daemon, started.json["id"])
        assert done["state"] == "done", done
    finally:
        daemon.stop()
    assert (project / "animations" / "hero.tres").is_file()
    spent = before - api.get("/credits/balance").json["available"]
    assert spent == as_created(sandbox, quote.json["credits"])
    assert_bought_the_video_alone(sandbox, api, spent)


def test_a_kill_after_the_generation_is_sent_then_again_makes_one_task(
    make_sandbox, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    small = tmp_path / "imp.png"
    draw_character(32).save(small)
    out = tmp_path / "out"
    args = ["animate", str(small), *QUICK, *SHEET, "--out", str(out)]
    before = api.get("/credits/balance").json["available"]
    killed = companion(sandbox.base_url, tmp_path / "home", *args, crash="after_send")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    again = companion(sandbox.base_url, tmp_path / "home", *args)
    assert again.returncode == 0, again.stderr
    assert frame_sizes(out / "imp.json") == {(32, 32)}
    spent = before - api.get("/credits/balance").json["available"]
    assert_bought_the_video_alone(sandbox, api, spent)
