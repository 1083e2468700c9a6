"""In place, loop and trim by every door that makes an animation: `companion animate`,
`companion jobs add`, the daemon's animate (and its quote) and a drop folder's defaults.
They are the local part of a request: the paid job exports its kept clip here with them,
and asking for other finishing of the same generation is a free re-cut (nothing created,
the balance still). What lands is read: trimmed frames that keep their 64 px place,
the loop's seam, corners of alpha 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from companion.media import draw_character, far_key_colour
from companion.store import Store
from tests.conftest import TEST_KEY
from tests.support.alpha import assert_lands, body_spread, corners
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.daemon import body, call, godot_project, wait_final
from tests.support.drops import start_daemon, wait_until
from tests.support.paid import creates

pytestmark = pytest.mark.slow

QUICK = ["--prompt", "walk", "--frame-count", "6", "--seconds", "1", "--resolution", "360p"]
SHEET = ["--formats", "spritesheet,spritesheet_json"]


def sheet_frames(sheet_json: Path) -> dict[str, Any]:
    frames: dict[str, Any] = json.loads(sheet_json.read_text())["frames"]
    return frames


def assert_trimmed_in_place(sheet_json: Path, side: int = 64) -> None:
    """Every frame keeps its place in a side x side frame, and some are cut smaller."""
    frames = sheet_frames(sheet_json).values()
    assert all(f["sourceSize"] == {"w": side, "h": side} for f in frames), frames
    assert any(f["trimmed"] for f in frames), frames
    assert all(f["frame"]["w"] <= side and f["frame"]["h"] <= side for f in frames)


def test_animate_trims_and_loops_then_in_place_is_a_free_recut(
    make_sandbox: Any, tmp_path: Path
) -> None:
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home, out = tmp_path / "home", tmp_path / "out"
    picture = tmp_path / "knight.png"
    draw_character(64).save(picture)
    # Made smooth: the walk's hop is measured at the clip's own scale (a 64 px sprite is
    # pixel art unasked, and kept whole in its frame, hop or not).
    made = companion(sandbox.base_url, home, "animate", str(picture), *QUICK, *SHEET,
                     "--trim", "--loop", "auto", "--no-pixel-art", "--out", str(out),
                     "--json")  # fmt: skip
    assert made.returncode == 0, made.stderr
    summary = json.loads(made.stdout)
    assert summary["loop"]["seam"] >= 0 and summary["loop"]["end"] > summary["loop"]["start"]
    assert_trimmed_in_place(out / "knight.json")
    assert corners(out / "knight.png") == [0, 0, 0, 0]
    key = far_key_colour(draw_character(64))
    loose = assert_lands(out / "knight.json", key, 64, stretches=True)
    assert len(creates(sandbox)) == 1
    paid = api.get("/credits/balance").json["available"]

    again = companion(sandbox.base_url, home, "animate", str(picture), *QUICK, *SHEET,
                      "--in-place", "--no-pixel-art", "--name", "still", "--out", str(out),
                      "--json")  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert len(creates(sandbox)) == 1 and api.get("/credits/balance").json["available"] == paid
    assert all(not f["trimmed"] for f in sheet_frames(out / "still.json").values())
    # In place: the walking body stands in the same place in every frame.
    # In place the walker's tunic keeps its place, to within its own squash and stretch
    # (9 %, 2 px at 64 px); loose, it hops up and down.
    held = assert_lands(out / "still.json", key, 64, stretches=True)
    assert body_spread(held) <= 2.5 < 5.0 <= body_spread(loose)
    store = Store(home / "companion.db")
    try:
        recut = next(j for j in store.jobs() if j.name == "still")
        assert recut.kind == "recut" and store.charged(recut.id) == 0
        assert recut.request["local_export"]["in_place"] is True
    finally:
        store.close()


def test_jobs_add_takes_the_finishing(make_sandbox: Any, tmp_path: Path) -> None:
    sandbox = make_sandbox(journal=True)
    home, target = tmp_path / "home", tmp_path / "target"
    picture = tmp_path / "knight.png"
    draw_character(64).save(picture)
    added = companion(sandbox.base_url, home, "jobs", "add", str(picture), *QUICK, *SHEET,
                      "--trim", "--in-place", "--target", str(target))  # fmt: skip
    assert added.returncode == 0, added.stderr
    ran = companion(sandbox.base_url, home, "jobs", "run")
    assert ran.returncode == 0, ran.stderr + ran.stdout
    assert_trimmed_in_place(target / "knight.json")
    assert corners(target / "knight.png") == [0, 0, 0, 0]
    key = far_key_colour(draw_character(64))
    assert body_spread(assert_lands(target / "knight.json", key, 64, stretches=True)) <= 2.5
    assert len(creates(sandbox)) == 1


def test_the_daemon_body_and_its_quote_take_the_finishing(
    make_sandbox: Any, tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.2, journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    running = start_daemon(sandbox, tmp_path / "home")
    try:
        project = godot_project(running, tmp_path)
        # Smooth frames, whose bob is measured below (the 64 px hero is pixel art unasked).
        asked = body(project, "walk", trim=True, loop=True, pixel_art=False)
        quoted = call(running, "POST", "/api/v1/quote", asked)
        assert quoted.status == 200 and quoted.json["spends"] > 0, quoted.body
        first = call(
            running, "POST", "/api/v1/animate", {**asked, "quote_id": quoted.json["quote_id"]}
        )
        assert first.status == 202, first.body
        done = wait_final(running, first.json["id"])
        assert done["state"] == "done", done
        assert done["loop"]["seam"] >= 0, done
        assert_trimmed_in_place(project / "animations" / "hero.json")
        with Image.open(project / "art" / "hero.png") as art:
            key, side = far_key_colour(art), art.width
        loose = assert_lands(project / "animations" / "hero.json", key, side, stretches=True)
        paid = api.get("/credits/balance").json["available"]

        # The same generation held in place and untrimmed: quoted free, re-cut free.
        still = body(project, "walk", in_place=True, trim=False, pixel_art=False, name="hero_still")
        quoted = call(running, "POST", "/api/v1/quote", still)
        assert quoted.status == 200 and quoted.json["spends"] == 0, quoted.body
        assert quoted.json["recut"]["finishing"] == ["in_place"], quoted.body
        cut = call(
            running, "POST", "/api/v1/animate", {**still, "quote_id": quoted.json["quote_id"]}
        )
        assert cut.status == 202, cut.body
        assert wait_final(running, cut.json["id"])["state"] == "done"
        frames = sheet_frames(project / "animations" / "hero_still.json").values()
        assert all(not f["trimmed"] for f in frames)
        held = assert_lands(project / "animations" / "hero_still.json", key, side, stretches=True)
        # The tunic held still (0.1 px); loose, the walk's bob moves it 1.5 px.
        assert body_spread(held) <= 1.0 < 1.2 <= body_spread(loose)
        assert len(creates(sandbox)) == 1 and api.get("/credits/balance").json["available"] == paid
        bad = call(running, "POST", "/api/v1/quote", body(project, "walk", trim="yes please"))
        assert bad.status == 400 and "trim" in bad.error["message"], bad.body
    finally:
        running.stop()


def test_a_drop_folder_lands_trimmed_transparent_frames_of_the_pictures_size(
    make_sandbox: Any, tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.2, journal=True)
    running = start_daemon(sandbox, tmp_path / "home")
    try:
        project = tmp_path / "game"
        project.mkdir()
        defaults = {  # no size: the picture's own (80 px)
            "prompt": "idle breathing",
            "video": {"duration_seconds": 1, "resolution": "360p"},
            "export": {"frame_count": 4, "output_formats": ["spritesheet", "spritesheet_json"]},
            "trim": True,
            "in_place": True,
        }
        given = {"root": str(project), "inbox": "inbox", "defaults": defaults}
        assert call(running, "POST", "/api/v1/projects", given).status == 201
        inbox = project / "inbox"
        draw_character(80).save(inbox / "imp.png")
        wait_until(lambda: (inbox / "done" / "imp.png").exists(), running, 60)
        jobs = call(running, "GET", "/api/v1/jobs").json["data"]
        [imp] = [j for j in jobs if j["name"] == "imp"]
        assert imp["state"] == "done", imp
        [sheet] = [
            Path(o["installed_path"]) for o in imp["outputs"] if o["format"] == "spritesheet"
        ]
        assert_trimmed_in_place(sheet.with_suffix(".json"), side=80)
        assert corners(sheet) == [0, 0, 0, 0]
        key = far_key_colour(draw_character(80))
        assert body_spread(assert_lands(sheet.with_suffix(".json"), key, 80, stretches=True)) <= 1.0
        assert len(creates(sandbox)) == 1
    finally:
        running.stop()
