"""A keyed character's rim is read against the truth: the character drawn four times
larger over the key and scaled down (as a generated clip blends its rim into the key),
then keyed, must give back the coverage and colours the same drawing has over nothing.
A blend of the character's colour and the key is neither kept whole (a teal line round
a blue shirt on green) nor dropped; a dark outline, which is no such blend, stays."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from companion.media import ChromaKeyer, draw_character

UP, SIDE = 4, 64


def over_key(art: Image.Image, key: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(what the clip shows: the art over the key, scaled down; the truth: the art scaled
    down over nothing, premultiplied colour and alpha as floats)."""
    ground = Image.new("RGBA", art.size, (*key, 255))
    ground.alpha_composite(art)
    shown = np.asarray(ground.resize((SIDE, SIDE), Image.Resampling.BOX))
    pixels = np.asarray(art).astype(np.float64)
    pixels[..., :3] *= pixels[..., 3:4] / 255
    truth = pixels.reshape(SIDE, UP, SIDE, UP, 4).mean(axis=(1, 3))
    return shown, truth


def premultiplied(rgba: np.ndarray) -> np.ndarray:
    out = rgba.astype(np.float64)
    out[..., :3] *= out[..., 3:4] / 255
    return out


@pytest.mark.parametrize("key", [(0, 255, 0), (255, 0, 255), (0, 0, 255)])
def test_the_rim_has_the_coverage_and_colours_of_the_character(key: tuple[int, int, int]) -> None:
    shown, truth = over_key(draw_character(SIDE * UP).convert("RGBA"), key)
    keyed = premultiplied(ChromaKeyer(key).apply(shown))
    rim = (truth[..., 3] > 0) & (truth[..., 3] < 255)
    alpha_off = np.abs(keyed[..., 3] - truth[..., 3])
    colour_off = np.abs(keyed[..., :3] - truth[..., :3]).max(axis=2)
    # Chroma distance alone was 62 to 69 levels off along the rim, 62 to 78 pixels over
    # a quarter off, and 39 to 94 pixels' colours off by 48 levels or more.
    assert alpha_off[rim].mean() < 20, alpha_off[rim].mean()
    assert (alpha_off > 64).sum() <= 10
    assert (colour_off > 48).sum() <= 10


def test_a_blue_shirt_on_green_keeps_no_teal_line() -> None:
    shirt, key = (40, 90, 200), (0, 255, 0)
    art = Image.new("RGBA", (SIDE * UP, SIDE * UP), (0, 0, 0, 0))
    ImageDraw.Draw(art).ellipse((16 * UP, 12 * UP, 48 * UP, 52 * UP), fill=(*shirt, 255))
    shown, truth = over_key(art, key)
    keyed = ChromaKeyer(key).apply(shown)
    solid = keyed[..., 3] >= 200
    off = np.abs(keyed[..., :3].astype(int) - shirt).max(axis=2) > 24
    assert solid.sum() > 900 and not (solid & off).any(), keyed[solid & off][:5]
    # Each rim pixel shows the shirt, about as much of it as covers the pixel (a blend
    # of under a fifth is keyed out whole, as the key's own noise is).
    rim = (truth[..., 3] > 0) & (truth[..., 3] < 255)
    off_rim = np.abs(keyed[..., 3][rim] - truth[..., 3][rim])
    assert off_rim.mean() < 10 and off_rim.max() < 48, (off_rim.mean(), off_rim.max())


def test_a_dark_outline_is_no_blend_and_stays_whole() -> None:
    key = (0, 255, 0)
    art = Image.new("RGBA", (SIDE, SIDE), (0, 0, 0, 0))  # drawn at its size: hard edges
    ImageDraw.Draw(art).ellipse(
        (12, 8, 52, 56), fill=(235, 200, 170, 255), outline=(20, 20, 20, 255), width=2
    )
    ground = Image.new("RGBA", art.size, (*key, 255))
    ground.alpha_composite(art)
    keyed = ChromaKeyer(key).apply(np.asarray(ground))
    wanted = np.asarray(art)
    assert np.array_equal(keyed[..., 3], wanted[..., 3])
    drawn = wanted[..., 3] == 255
    assert np.abs(keyed[drawn][:, :3].astype(int) - wanted[drawn][:, :3]).max() <= 2
