"""POST /character/quote and POST /character: one quote for a character's moves (each
move's price and the total), the set paid once ever (the same set again spends 0, a move
added pays only for itself), every move refused before any is started. Against a sandbox
and the daemon on loopback: the sandbox's balance and its journal of creates."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.daemon import DaemonThread, call, wait_final
from tests.support.paid import creates

MOVES = [
    {"name": "idle", "prompt": "idle breathing"},
    {"name": "walk", "prompt": "walk cycle"},
    {"name": "attack", "prompt": "sword slash"},
]


def _body(project: Path, moves: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "project_root": str(project),
        "image_path": "hero.png",
        "export": {"frame_count": 4, "output_width": 64, "output_height": 64},
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "moves": moves,
        "seed": 7,
        **extra,
    }


def _made(running: DaemonThread, body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The set quoted then made with that quote, every move waited for."""
    quote = call(running, "POST", "/api/v1/character/quote", body)
    assert quote.status == 200, quote.body
    made = call(running, "POST", "/api/v1/character", {**body, "quote_id": quote.json["quote_id"]})
    assert made.status in (200, 202), made.body
    for move in made.json["moves"]:
        assert wait_final(running, move["job"]["id"])["state"] == "done", move
    return quote.json, made.json


@pytest.mark.slow
def test_a_set_is_paid_once_and_a_move_added_pays_only_for_itself(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.3, journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = tmp_path / "game"
        project.mkdir()
        (project / "project.godot").write_text("config_version=5\n")
        draw_character(64).save(project / "hero.png")
        added = call(running, "POST", "/api/v1/projects", {"root": str(project), "engine": "godot"})
        assert added.status == 201, added.body

        before = api.get("/credits/balance").json["available"]
        quote, made = _made(running, _body(project, MOVES))
        prices = [m["quote"]["spends"] for m in quote["moves"]]
        assert all(p > 0 for p in prices) and quote["spends"] == sum(prices) == made["spends"]
        assert [m["move"] for m in quote["moves"]] == ["idle", "walk", "attack"]
        assert [m["loop"] for m in quote["moves"]] == [True, True, False]
        assert before - api.get("/credits/balance").json["available"] == quote["spends"]
        assert len(creates(sandbox)) == 3
        frames = project / "animations" / "hero.tres"
        assert quote["frames"] == str(frames) and frames.is_file()
        assert (project / "animations" / "hero.tscn").is_file()

        # The same set again, the character's file deleted meanwhile: every move
        # answered by its own job, nothing spent, and the file made again from them.
        frames.unlink()
        middle = api.get("/credits/balance").json["available"]
        again, remade = _made(running, _body(project, MOVES))
        assert sorted(re.findall(r'"name": &"(\w+)"', frames.read_text())) == [
            "attack", "idle", "walk"
        ]  # fmt: skip
        assert again["spends"] == remade["spends"] == 0
        assert [m["job"]["id"] for m in remade["moves"]] == [m["job"]["id"] for m in made["moves"]]
        assert api.get("/credits/balance").json["available"] == middle
        assert len(creates(sandbox)) == 3

        # A fourth move: only it is paid.
        four = [*MOVES, {"name": "jump", "prompt": "jump up", "loop": True}]
        fourth, _ = _made(running, _body(project, four))
        assert [m["quote"]["spends"] for m in fourth["moves"]] == [0, 0, 0, fourth["spends"]]
        assert middle - api.get("/credits/balance").json["available"] == fourth["spends"] > 0
        assert len(creates(sandbox)) == 4
        text = frames.read_text()
        for name in ("idle", "walk", "attack", "jump"):
            assert f'"name": &"{name}"' in text

        # The loop search asked of the set after the fact: free re-cuts, each looping
        # move cut at its seam, the one that plays once left whole.
        seamless, remade = _made(running, _body(project, MOVES, loop=True))
        assert seamless["spends"] == 0 and len(creates(sandbox)) == 4
        cuts = {m["move"]: wait_final(running, m["job"]["id"]).get("loop") for m in remade["moves"]}
        assert cuts["idle"] is not None and cuts["walk"] is not None, cuts
        assert cuts["attack"] is None, cuts
    finally:
        running.stop()


def test_a_set_is_refused_whole_before_anything_is_spent(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    """A bad move name, a stale quote, a character file that is not a SpriteFrames and a
    set over the day's budget (each move under the per-job one) are each refused with
    the field named, and no move is created."""
    sandbox = make_sandbox(task_seconds=0.3, journal=True)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("budgets:\n  per_job: 1000\n  per_day: 12\n")
    running = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        project = tmp_path / "game"
        (project / "animations").mkdir(parents=True)
        (project / "project.godot").write_text("config_version=5\n")
        draw_character(64).save(project / "hero.png")
        registered = {"root": str(project), "engine": "godot"}
        assert call(running, "POST", "/api/v1/projects", registered).status == 201

        twice = [*MOVES, {"name": "Walk", "prompt": "walk again"}]
        for moves, field in (
            (twice, "moves[3].name: 'Walk' is given twice"),
            ([{"name": "1st", "prompt": "x"}], "moves[0].name: '1st' is not usable"),
        ):
            refused = call(running, "POST", "/api/v1/character/quote", _body(project, moves))
            assert refused.status == 400 and refused.error["message"].startswith(field)
        gifs = _body(project, MOVES)
        gifs["export"] = {**gifs["export"], "output_formats": ["gif"]}
        unwired = call(running, "POST", "/api/v1/character/quote", gifs)
        assert unwired.error["message"].startswith("export.output_formats: a character in a")
        prompt = call(running, "POST", "/api/v1/character", _body(project, MOVES, prompt="x"))
        assert prompt.status == 400 and "moves[].prompt" in prompt.error["message"]

        quote = call(running, "POST", "/api/v1/character/quote", _body(project, MOVES))
        assert quote.status == 200 and quote.json["budget"]["over"] is True  # 3 moves > 12
        assert all(not m["quote"]["budget"]["over"] for m in quote.json["moves"])
        over = call(
            running, "POST", "/api/v1/character",
            _body(project, MOVES, quote_id=quote.json["quote_id"]),
        )  # fmt: skip
        assert over.status == 409 and over.error["code"] == "OVER_BUDGET", over.body
        stale = call(running, "POST", "/api/v1/character", _body(project, MOVES, quote_id="q_x"))
        assert stale.status == 409 and stale.error["code"] == "STALE_QUOTE"

        (project / "animations" / "hero.tres").write_text("[gd_scene format=3]\n")
        clash = call(running, "POST", "/api/v1/character/quote", _body(project, MOVES))
        assert clash.json["conflicts"][0]["path"].endswith("hero.tres")
        refused = call(running, "POST", "/api/v1/character", _body(project, MOVES, approve=True))
        assert refused.status == 409 and refused.error["code"] == "CONFLICT"
        assert creates(sandbox) == [] and call(running, "GET", "/api/v1/jobs").json["data"] == []
    finally:
        running.stop()
