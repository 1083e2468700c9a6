"""Which pictures are pixel art when nothing says: a sprite of few colours and hard alpha
at 1x up to 64 px a side, or one drawn on a grid at 2x and up whatever its size; flat art
bigger than that at 1x (the demo's hero, drawn with shapes) is made smooth unless asked,
and a painted picture never is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from companion.jobs.ask.defaults import SPRITE_SIDE, pixel_unasked
from companion.media.demo_art import draw_character, draw_coin
from tests.support.pixel_art import draw_pixel_character


@pytest.mark.parametrize(
    ("size", "grid", "pixel"),
    [(16, 1, True), (32, 1, True), (SPRITE_SIDE, 1, True), (96, 1, False), (128, 4, True)],
)
def test_a_sprite_is_pixel_art_by_its_size_and_grid(
    tmp_path: Path, size: int, grid: int, pixel: bool
) -> None:
    path = tmp_path / f"art{size}x{grid}.png"
    draw_pixel_character(size, grid).save(path)
    assert pixel_unasked(path) is pixel


def test_flat_shapes_over_the_sprite_side_stay_smooth_and_a_coin_is_pixel_art(
    tmp_path: Path,
) -> None:
    hero, coin = tmp_path / "hero.png", tmp_path / "coin.png"
    draw_character(128).save(hero)
    draw_coin(64).save(coin)
    assert not pixel_unasked(hero)
    assert pixel_unasked(coin)  # three flat colours, hard alpha, 64 px: a sprite


def test_a_painted_picture_is_never_pixel_art_unasked(tmp_path: Path) -> None:
    ramp = np.zeros((32, 32, 4), dtype=np.uint8)
    ramp[..., 0] = np.arange(32, dtype=np.uint8)[None, :] * 8
    ramp[..., 1] = np.arange(32, dtype=np.uint8)[:, None] * 8
    ramp[..., 3] = 255
    path = tmp_path / "ramp.png"
    Image.fromarray(ramp, "RGBA").save(path)
    assert not pixel_unasked(path)
