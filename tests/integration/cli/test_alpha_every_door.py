"""A picture with transparent pixels gives transparent sprites by every door, without
being asked: the command line's defaults, `--transparent`, and the daemon's API with the
body the dock sends (its model named; then Transparent ticked, with and without a key
colour). Each sheet is looked at: corners and background alpha 0, no key colour left,
frames the picture's own size (64 px), and the quote is what was charged. Opaque is only
ever asked for (`--opaque`; the dock's unticked box, or a model that cannot key)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw

from companion.media import draw_character, far_key_colour
from companion.store import Store
from tests.conftest import TEST_KEY
from tests.support.alpha import (
    GREEN,
    assert_keyed,
    assert_lands,
    assert_plays_the_frames,
    frame_sizes,
    hex_key,
)
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.daemon import DaemonThread, call, godot_project, wait_final

pytestmark = pytest.mark.slow

QUICK = ["--prompt", "idle", "--frame-count", "4", "--seconds", "1", "--resolution", "360p"]


def corner_alpha(sheet: Path) -> int:
    with Image.open(sheet) as opened:
        return int(opened.convert("RGBA").getpixel((0, 0))[3])


def test_the_command_line_keys_a_transparent_picture_unasked(
    make_sandbox: Any, tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    picture = tmp_path / "knight.png"
    draw_character(64).save(picture)  # a 64 px character on a transparent background
    with Image.open(picture) as opened:
        key = far_key_colour(opened)
    # Untouched, the motion files too: they are what a web page or a chat shows.
    runs = {"default": [], "transparent": ["--transparent"], "opaque": ["--opaque"]}
    for name, flags in runs.items():
        formats = ["--formats", "spritesheet,spritesheet_json"]
        if name == "default":
            formats[1] += ",webm_alpha,gif"
        before = api.get("/credits/balance").json["available"]
        made = companion(
            sandbox.base_url, home, "animate", str(picture), *QUICK, *formats, *flags,
            "--name", name, "--out", str(tmp_path / "out"),
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        sheet = tmp_path / "out" / f"{name}.png"
        # A 64 px picture gives 64 px frames, unasked.
        assert frame_sizes(tmp_path / "out" / f"{name}.json") == {(64, 64)}, name
        store = Store(home / "companion.db")
        try:
            (job,) = [j for j in store.jobs() if j.name == name]
            charged = store.charged(job.id)
        finally:
            store.close()
        # Money: the quote is what the service charged.
        assert job.quote == charged == before - api.get("/credits/balance").json["available"]
        if name == "opaque":
            assert corner_alpha(sheet) == 255  # asked for: the video's background kept
            assert "transparency" not in job.request["video"] or (
                job.request["video"]["transparency"]["mode"] == "standard"
            )
            continue
        # Keyed on the colour the companion chose far from the picture's hues, and that
        # colour keyed out.
        asked = job.request["video"]["transparency"]
        assert asked["mode"] == "alpha_key" and hex_key(asked["key_color"]) == key, asked
        assert_keyed(sheet, key)
        assert_keyed(sheet, GREEN)
        # Every whole frame, put back as an engine does: clear all around the knight.
        frames = assert_lands(tmp_path / "out" / f"{name}.json", key, 64)
        if name == "default":
            out = tmp_path / "out"
            assert_plays_the_frames(out / f"{name}.webm", out / f"{name}.gif", frames, key)


def slime(size: int) -> Image.Image:
    """A green ring on a transparent background: green is its own hue, and the hole in
    the middle is enclosed by it."""
    picture = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(picture)
    draw.ellipse((8, 16, size - 8, size - 4), fill=(40, 190, 60, 255), outline=(10, 80, 20, 255))
    draw.ellipse((size // 2 - 8, size // 2, size // 2 + 8, size // 2 + 16), fill=(0, 0, 0, 0))
    return picture


def test_a_green_picture_is_keyed_on_a_colour_far_from_green(
    make_sandbox: Any, tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    picture = tmp_path / "slime.png"
    slime(64).save(picture)
    made = companion(
        sandbox.base_url, tmp_path / "home", "animate", str(picture), *QUICK,
        "--formats", "spritesheet,spritesheet_json", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    store = Store(tmp_path / "home" / "companion.db")
    try:
        (job,) = store.jobs()
    finally:
        store.close()
    key = hex_key(job.request["video"]["transparency"]["key_color"])
    assert key == (255, 0, 255), key  # magenta: the furthest from the slime's green
    sheet = tmp_path / "out" / "slime.png"
    assert_keyed(sheet, key)
    with Image.open(sheet) as opened:
        frame = opened.convert("RGBA").crop((0, 0, 64, 64))
    # The slime kept its green, and the hole it encloses is keyed out too.
    ring, hole = frame.getpixel((32, 24)), frame.getpixel((32, 40))
    assert ring[3] == 255 and ring[1] > 120 > ring[0], ring
    assert hole[3] == 0, hole


def test_the_daemon_keys_the_body_the_dock_sends(make_sandbox: Any, tmp_path: Path) -> None:
    """The dock names its model and, untouched, sends no size and no transparency; ticked,
    Transparent sends alpha_key (a key colour only when the user picked one). Each lands
    keyed, never as a coloured box; a model that cannot key makes an opaque one."""
    sandbox = make_sandbox(task_seconds=0.2)
    api = Api(sandbox.base_url, key=TEST_KEY)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        with Image.open(project / "art" / "hero.png") as opened:
            key = far_key_colour(opened)

        def dock_body(name: str, **video: Any) -> dict[str, Any]:
            return {
                "project_root": str(project),
                "image_path": "art/hero.png",
                "prompt": "idle",
                "name": name,
                "video": {"duration_seconds": 1, "model": "sandbox-motion-1", **video},
                "export": {
                    "frame_count": 4,
                    "output_formats": ["spritesheet", "spritesheet_json", "godot_pack"],
                },
            }

        cases = {
            "untouched": (dock_body("untouched"), key),
            "ticked": (dock_body("ticked", transparency={"mode": "alpha_key"}), key),
            "picked": (
                dock_body(
                    "picked",
                    transparency={
                        "mode": "alpha_key", "key_selection": "manual", "key_color": "#00ff00",
                    },
                ),
                GREEN,
            ),
        }  # fmt: skip
        for name, (sent, colour) in cases.items():
            before = api.get("/credits/balance").json["available"]
            quote = call(daemon, "POST", "/api/v1/quote", sent).json
            made = call(daemon, "POST", "/api/v1/animate", {**sent, "quote_id": quote["quote_id"]})
            assert made.status == 202, made.body
            done = wait_final(daemon, made.json["id"])
            assert done["state"] == "done", done
            # Money: what the quote said the press spends is what was charged: the keyed
            # video's price for the first; Transparent ticked asks for the same keyed
            # video, so it is a free re-cut of the clip kept from the first.
            assert before - api.get("/credits/balance").json["available"] == quote["spends"]
            if name == "untouched":
                assert quote["spends"] == quote["credits"] > 0, quote
            if name == "ticked":
                assert quote["spends"] == 0 and quote["earlier"]["why"] == "recut", quote
            target = project / "animations"
            assert frame_sizes(target / f"{name}.json") == {(64, 64)}, name
            assert_keyed(target / f"{name}.png", colour)
            assert_keyed(target / f"{name}.png", GREEN)
            assert_lands(target / f"{name}.json", colour, 64)
            assert f'"name": &"{name}"' in (target / f"{name}.tres").read_text()
        # A model that cannot key, named: an opaque result, not a refusal.
        lite = dock_body("lite")
        lite["video"]["model"] = "sandbox-motion-lite"
        lite["video"]["resolution"] = "360p"
        made = call(daemon, "POST", "/api/v1/animate", lite)
        assert made.status == 202, made.body
        assert wait_final(daemon, made.json["id"])["state"] == "done"
        assert corner_alpha(project / "animations" / "lite.png") == 255
        # Unticked: opaque, asked for.
        unticked = dock_body("unticked", transparency={"mode": "standard"})
        made = call(daemon, "POST", "/api/v1/animate", unticked)
        assert wait_final(daemon, made.json["id"])["state"] == "done"
        assert corner_alpha(project / "animations" / "unticked.png") == 255
    finally:
        daemon.stop()


def test_a_blue_and_red_character_lands_without_a_line_round_it(
    make_sandbox: Any, tmp_path: Path
) -> None:
    """Blue and red are far from the green it is made on, so their blends with it (teal,
    olive) were as far from green as they are and kept opaque: a line round the body.
    What lands now holds, where opaque, the character's own colours."""
    sandbox = make_sandbox()
    body, head = (40, 90, 200), (200, 60, 50)
    picture = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    draw = ImageDraw.Draw(picture)
    draw.rectangle((22, 26, 42, 58), fill=(*body, 255))
    draw.ellipse((24, 6, 40, 24), fill=(*head, 255))
    picture.save(tmp_path / "pic.png")
    made = companion(
        sandbox.base_url, tmp_path / "home", "animate", str(tmp_path / "pic.png"),
        "--prompt", "walk", "--frame-count", "8", "--seconds", "1", "--resolution", "360p",
        "--formats", "spritesheet,spritesheet_json", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    frames = assert_lands(tmp_path / "out" / "pic.json", GREEN, 64, stretches=True)
    pixels = np.concatenate([f.reshape(-1, 4) for f in frames]).astype(int)
    opaque = pixels[pixels[:, 3] >= 200]
    own = [np.abs(opaque[:, :3] - colour).max(axis=1) <= 40 for colour in (body, head)]
    foreign = ~(own[0] | own[1])
    # 6 to 8 % of the opaque pixels were teal or olive; a few at a corner remain.
    assert foreign.mean() < 0.015, (foreign.mean(), opaque[foreign][:5].tolist())
