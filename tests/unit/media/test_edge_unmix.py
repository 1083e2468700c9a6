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


def chroma_halved(rgba: np.ndarray) -> np.ndarray:
    """The frame as a 4:2:0 video carries it: full luma, colour at half the size each
    way, scaled back up on decoding (it bleeds a pixel or two across the rim)."""
    ycbcr = Image.fromarray(np.ascontiguousarray(rgba[..., :3])).convert("YCbCr")
    luma, cb, cr = ycbcr.split()
    half = (SIDE // 2, SIDE // 2)
    cb, cr = (
        c.resize(half, Image.Resampling.BOX).resize((SIDE, SIDE), Image.Resampling.BILINEAR)
        for c in (cb, cr)
    )
    rgb = np.asarray(Image.merge("YCbCr", (luma, cb, cr)).convert("RGB"))
    return np.dstack([rgb, rgba[..., 3]])


# (rim alpha off on average, pixels over a quarter off, pixels whose colour is off by
# 48 levels or more), at most. The key's distance alone gave 62 to 69, 62 to 78 and 39 to
# 94 on full colour, and 87 to 110 on the rim through 4:2:0; the un-mixing gives 11 to
# 14 and 41 to 43.
BOUNDS = {False: (20.0, 10, 10), True: (70.0, 140, 170)}


@pytest.mark.parametrize("halved", [False, True], ids=["rgb", "yuv420"])
@pytest.mark.parametrize("key", [(0, 255, 0), (255, 0, 255), (0, 0, 255)])
def test_the_rim_has_the_coverage_and_colours_of_the_character(
    key: tuple[int, int, int], halved: bool
) -> None:
    shown, truth = over_key(draw_character(SIDE * UP).convert("RGBA"), key)
    if halved:
        shown = chroma_halved(shown)
    keyed = premultiplied(ChromaKeyer(key).apply(shown))
    rim = (truth[..., 3] > 0) & (truth[..., 3] < 255)
    alpha_off = np.abs(keyed[..., 3] - truth[..., 3])
    colour_off = np.abs(keyed[..., :3] - truth[..., :3]).max(axis=2)
    mean, far, colours = BOUNDS[halved]
    assert alpha_off[rim].mean() < mean, alpha_off[rim].mean()
    assert (alpha_off > 64).sum() <= far, (alpha_off > 64).sum()
    assert (colour_off > 48).sum() <= colours, (colour_off > 48).sum()


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
