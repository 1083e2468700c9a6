"""Pixel art through the command line against the sandbox: 16, 32 and 64 px characters
and one drawn at 4x land as pixel art without being asked (every opaque pixel a
palette colour, alpha 0 or 255, the picture's silhouette and eyes, 4x blocks kept), the
quote says so, and the money is read: the same generation made smooth (--no-pixel-art)
or re-cut as pixel art again spends nothing, as pixel art is local work."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.media.demo_art import draw_character
from companion.store import Store
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import environment, in_process
from tests.support.media import zip_frames
from tests.support.pixel_art import assert_pixel_frames, draw_pixel_character, off_palette

pytestmark = pytest.mark.slow

QUICK = ["--prompt", "idle", "--frame-count", "3", "--seconds", "1", "--resolution", "360p",
         "--formats", "frames_zip"]  # fmt: skip


def balance(api: Api) -> int:
    return int(api.get("/credits/balance").json["available"])


def only_job(home: Path, name: str) -> Any:
    store = Store(home / "companion.db")
    try:
        return [j for j in store.jobs() if j.name == name][-1]
    finally:
        store.close()


def test_pixel_art_lands_as_pixel_art_and_costs_once(make_sandbox: Any, tmp_path: Path) -> None:
    sandbox = make_sandbox()
    api = Api(sandbox.base_url, key=TEST_KEY)
    home, out = tmp_path / "home", tmp_path / "out"
    env = environment(sandbox.base_url, home)
    for size, grid in ((16, 1), (32, 1), (64, 1), (64, 4)):
        picture = draw_pixel_character(size, grid)
        path = tmp_path / f"px{size}x{grid}.png"
        picture.save(path)
        before = balance(api)
        made = in_process(["animate", str(path), *QUICK, "--out", str(out)], env)
        assert made.returncode == 0, made.stderr
        assert "pixel art: 5 colours" in made.stderr, made.stderr
        assert ("drawn at 4x" in made.stderr) == (grid == 4)
        job = only_job(home, path.stem)
        assert job.quote == before - balance(api) > 0  # the quote is what was charged
        frames = zip_frames(out / f"{path.stem}_frames.zip")
        assert_pixel_frames(frames, picture, grid=grid)
    # The same generation made smooth: a free re-cut of the kept clip.
    before = balance(api)
    smooth = in_process(["animate", str(path), *QUICK, "--no-pixel-art", "--name", "smooth",
                         "--out", str(out)], env)  # fmt: skip
    assert smooth.returncode == 0, smooth.stderr
    assert balance(api) == before and "nothing is spent" in smooth.stderr
    soft = zip_frames(out / "smooth_frames.zip")
    assert len(np.unique(soft[0][..., 3])) > 2  # the smooth export's soft edge
    # And that re-cut made pixel art again, with a named palette: free too.
    palette = tmp_path / "four.hex"
    palette.write_text("#14101c\n#d27d2c\n#854c30\n#deeed6\n")
    recut_id = only_job(home, "smooth").id
    again = in_process(["recut", recut_id[:8], "--formats", "frames_zip", "--frame-count", "3",
                        "--pixel-art", "--palette", str(palette), "--name", "again",
                        "--out", str(out)], env)  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert balance(api) == before
    named = ((20, 16, 28), (210, 125, 44), (133, 76, 48), (222, 238, 214))
    for frame in zip_frames(out / "again_frames.zip"):
        assert off_palette(frame, named) == 0
        assert set(np.unique(frame[..., 3]).tolist()) <= {0, 255}


def test_a_palette_that_is_not_a_plain_file_is_refused_before_anything_is_spent(
    make_sandbox: Any, tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    api = Api(sandbox.base_url, key=TEST_KEY)
    env = environment(sandbox.base_url, tmp_path / "home")
    path = tmp_path / "px.png"
    draw_pixel_character(32).save(path)
    fifo = tmp_path / "colours.hex"
    os.mkfifo(fifo)  # nothing ever writes to it: reading it would wait for ever
    big = tmp_path / "big.hex"
    big.write_text("#14101c\n" * 300_000)  # past the bound of a palette file
    before = balance(api)
    for named in (fifo, big, tmp_path):
        made = in_process(["animate", str(path), *QUICK, "--palette", str(named),
                           "--out", str(tmp_path / "out")], env)  # fmt: skip
        assert made.returncode == 2, made.stderr
        assert "--palette" in made.stderr and str(named) in made.stderr, made.stderr
    assert balance(api) == before and not (tmp_path / "out").exists()


def test_the_summary_says_the_pixel_art_and_flat_art_is_told_how_to_ask(
    make_sandbox: Any, tmp_path: Path
) -> None:
    """--json names the pixel art the frames were made as (null: smooth), and a flat
    picture made smooth (over a sprite's size at 1x) is told how to ask for pixel art."""
    sandbox = make_sandbox()
    env = environment(sandbox.base_url, tmp_path / "home")
    sprite, flat = tmp_path / "px.png", tmp_path / "hero.png"
    draw_pixel_character(32).save(sprite)
    draw_character(128).save(flat)
    out = ["--out", str(tmp_path / "out"), "--json"]
    made = in_process(["animate", str(sprite), *QUICK, *out], env)
    assert made.returncode == 0, made.stderr
    said = json.loads(made.stdout)["pixel_art"]
    assert len(said["palette"]) == 5 and said["grid"] == 1
    smooth = in_process(["animate", str(flat), *QUICK, *out], env)
    assert smooth.returncode == 0, smooth.stderr
    assert json.loads(smooth.stdout)["pixel_art"] is None
    assert "--pixel-art keeps it pixel art" in smooth.stderr, smooth.stderr
