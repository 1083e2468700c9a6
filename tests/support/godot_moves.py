"""What the real editor run of the docs screenshots (test_godot_real.py) shows of a
character's moves and of a batch (harness: tests/support/godot/harness/moves.gd): every control
pressed as a user does, the money the sandbox lost equal to what the dock quoted, and
what landed in the project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image

BATCH = ["res://art/slime.png", "res://art/coin.png"]


def plan(tmp_path: Path) -> dict[str, Any]:
    """The harness's plan for the moves and the batch (beside the screenshots')."""
    return {
        "screenshot_moves": str(tmp_path / "moves.png"),
        "screenshot_scene": str(tmp_path / "character.png"),
        "batch": BATCH,
    }


def editor_errors(output: str) -> list[str]:
    """The ERROR lines of the editor's output (it runs with the dummy audio driver, so
    none is about the sound card Xvfb does not have)."""
    return [line for line in output.splitlines() if "ERROR" in line]


def check(seen: dict[str, Any], project: Path, tmp_path: Path) -> None:
    # The list as the user left it: three common moves (jump added, then removed), the
    # attack's prompt typed; idle and walk loop by default, attack does not.
    assert seen["use_selected"] == {"image": "res://art/hero.png", "batch": False}
    listed = seen["moves_list"]
    assert [m["name"] for m in listed] == ["idle", "walk", "attack"], listed
    assert [m["loop"] for m in listed] == [True, True, False], listed
    assert listed[2]["prompt"] == "sword slash, one swing", listed
    assert listed[0]["prompt"] == "idle breathing, loop", listed
    assert seen["moves_quoted_before"] == -1
    # One quote: each move's price on its row, the total on Animate all.
    # The idle's picture, prompt and video are those of knight_idle, made earlier in this
    # run from the Companion tab: its kept clip is re-cut, free.
    quote = seen["moves_quote"]
    prices = [int(p.split()[0]) for p in quote["prices"]]
    assert quote["prices"][0] == "0 — re-cut, free", quote
    assert all(p > 0 for p in prices[1:]), quote
    assert all(p.endswith("credits") for p in quote["prices"][1:]), quote
    # Over the per-job budget of this daemon: the set as a whole, approved by the one press.
    assert quote["animate"] == f"Approve and animate all ({sum(prices)} credits)", quote
    assert quote["said"].startswith(f"3 moves: {sum(prices)} credits in all"), quote
    assert "approves it once" in quote["said"], quote
    assert seen["moves_picture"] == "Character: hero.png", seen["moves_picture"]
    # Animate all pressed once: every move done, none waiting for its own approval,
    # progress full; the sandbox lost exactly the quoted total.
    assert not seen["moves_waited"]
    done = seen["moves_done"]
    assert done["states"] == ["done"] * 3 and done["progress"] == [1.0] * 3, done
    money = seen["moves_money"]
    assert money["before"] - money["after"] == sum(prices) == money["total"], money
    # What landed: one SpriteFrames, an animation per move, idle and walk looping.
    frames = seen["moves_frames"]
    assert set(frames) >= {"idle", "walk", "attack"}, frames
    assert [frames[m]["loop"] for m in ("idle", "walk", "attack")] == [True, True, False]
    assert all(frames[m]["count"] > 1 for m in ("idle", "walk", "attack")), frames
    assert (project / "animations" / "hero.tscn").is_file()
    # The same set again: every move made already, nothing to spend.
    again = seen["moves_again_quote"]
    assert again["prices"] == ["0 — already made"] * 3, again
    assert again["animate"] == "Animate all (0 credits)", again
    # One move made again alone: priced on its button, then paid that price.
    remake = seen["remake_quote"]
    price = int(remake["button"].removeprefix("Make (").removesuffix(")"))
    assert price > 0 and remake["said"].startswith("walk again"), remake
    assert seen["remade"]["state"] == "done" and seen["remade"]["spent"] == price, seen["remade"]
    # Generations: the character's moves under one item naming it.
    grouped = {g["name"]: g["moves"] for g in seen["grouped"]}
    assert "hero · 3 moves" in grouped, seen["grouped"]
    names = [name.split(" · ")[0] for name in grouped["hero · 3 moves"]]
    assert sorted(names) == ["hero_attack", "hero_idle", "hero_walk", "hero_walk"], grouped
    # The scene: an AnimatedSprite2D autoplaying idle, the walk advancing in the editor.
    scene = seen["scene"]
    assert scene["autoplay"] == "idle" and scene["playing"] and scene["frames_shown"] >= 3, scene
    # The batch: one quote per picture and the total, over the per-job budget as a whole so
    # Animate approves it once; both made, the sandbox lost the total.
    batch = seen["batch_quote"]
    assert batch["label"] == "Batch of 2: slime.png, coin.png", batch
    lines = batch["message"].splitlines()
    assert lines[0].startswith("slime.png: ") and lines[1].startswith("coin.png: "), lines
    assert batch["animate"] == f"Approve and animate batch ({batch['total']} credits)", batch
    made = seen["batch"]
    assert [j[1] for j in made["jobs"]] == ["done", "done"], made
    assert [j[2] for j in made["jobs"]] == ["res://animations/slime.tres",
                                            "res://animations/coin.tres"], made  # fmt: skip
    assert made["spent"] == batch["total"] > 0, made
    # The screenshots: the Moves list drawn where it is, the scene's sprite on screen.
    for name in ("moves.png", "character.png"):
        shot = Image.open(tmp_path / name).convert("RGB")
        assert shot.size == (1600, 1000)
    x, y, width, height = (int(v) for v in seen["moves_rect"])
    assert x >= 0 and y >= 0 and x + width <= 1600 and y + height <= 1000 and height >= 100
    moves = Image.open(tmp_path / "moves.png").convert("RGB").crop((x, y, x + width, y + height))
    colours = moves.getcolors(maxcolors=100000)
    assert colours is not None and len(colours) > 20
