"""What a transparent sheet must look like, read from its pixels: the corners and the
background fully transparent, and no pixel of the key colour left visible (neither the
background nor a fringe); and what its whole frames must look like, put back from the
sheet as an engine reads them: the art's size, clear all around the character, and (in
place) the character's body in the same place in every frame."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

GREEN = (0, 255, 0)


def keyed_out(sheet: Path, key: tuple[int, int, int] = GREEN) -> dict[str, float]:
    """The sheet's figures: corner alphas, the share of fully transparent pixels, and how
    many visible pixels lie near the key colour (asserted by the callers)."""
    with Image.open(sheet) as opened:
        pixels = np.asarray(opened.convert("RGBA"), dtype=np.int32)
    h, w = pixels.shape[:2]
    corners = [pixels[0, 0, 3], pixels[0, w - 1, 3], pixels[h - 1, 0, 3], pixels[h - 1, w - 1, 3]]
    visible = pixels[pixels[..., 3] > 0][:, :3]
    near_key = np.abs(visible - np.array(key)).max(axis=1) < 60 if visible.size else np.array([])
    return {
        "corner_alpha": float(max(corners)),
        "clear_share": float((pixels[..., 3] == 0).mean()),
        "key_pixels": float(near_key.sum()),
    }


def assert_keyed(sheet: Path, key: tuple[int, int, int] = GREEN) -> None:
    found = keyed_out(sheet, key)
    assert found["corner_alpha"] == 0, (sheet, found)
    assert found["clear_share"] > 0.3, (sheet, found)  # the background, not a coloured box
    assert found["key_pixels"] == 0, (sheet, found)


def hex_key(text: str) -> tuple[int, int, int]:
    text = text.lstrip("#")
    return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))


def rebuilt(sheet: np.ndarray, entry: dict[str, Any]) -> np.ndarray:
    """A whole frame put back from its rect and offset, as a TexturePacker reader does."""
    f, s, size = entry["frame"], entry["spriteSourceSize"], entry["sourceSize"]
    whole = np.zeros((size["h"], size["w"], 4), dtype=np.uint8)
    cut = sheet[f["y"] : f["y"] + f["h"], f["x"] : f["x"] + f["w"]]
    whole[s["y"] : s["y"] + s["h"], s["x"] : s["x"] + s["w"]] = cut
    return whole


def whole_frames(sheet_json: Path) -> list[np.ndarray]:
    """Every frame of a one-page sheet, in order, put back whole (trimmed or not)."""
    doc = json.loads(sheet_json.read_text())
    with Image.open(sheet_json.parent / doc["meta"]["image"]) as opened:
        sheet = np.asarray(opened.convert("RGBA"))
    return [rebuilt(sheet, entry) for entry in doc["frames"].values()]


def assert_lands(
    sheet_json: Path, key: tuple[int, int, int], side: int, stretches: bool = False
) -> list[np.ndarray]:
    """The sheet keyed (no key colour, no green), and every whole frame side x side and
    clear around the character: alpha 0 along its whole border, or, for a body that
    stretches (a walk), at its corners and along its top and sides. A stretch can take
    the feet down to the frame's bottom: in the clip itself where the art stands near
    its bottom edge, and more when held in place on a squashed first pose
    (media/register.py). Returns the frames."""
    sheet = sheet_json.with_suffix(".png")
    assert_keyed(sheet, key)
    assert_keyed(sheet, GREEN)
    frames = whole_frames(sheet_json)
    for index, frame in enumerate(frames):
        assert frame.shape == (side, side, 4), (sheet_json, index, frame.shape)
        edges = [frame[0], frame[:, 0], frame[:, -1]] + ([] if stretches else [frame[-1]])
        border = np.concatenate([*edges, frame[-1, :1], frame[-1, -1:]])
        assert not border[:, 3].any(), (sheet_json, index, "alpha on the frame's border")
        assert frame[..., 3].any(), (sheet_json, index, "an empty frame")
    return frames


# The tunic of companion.media.draw_character: the body registration holds.
TUNIC = (196, 70, 54)


def body_spread(frames: list[np.ndarray], colour: tuple[int, int, int] = TUNIC) -> float:
    """How far a body part (the pixels of its colour) moves across the frames, in
    pixels: the larger of its centre's spread across and down."""
    centres = []
    for frame in frames:
        rgb = frame[..., :3].astype(int)
        part = (np.abs(rgb - np.array(colour)).sum(axis=2) < 60) & (frame[..., 3] > 128)
        ys, xs = np.nonzero(part)
        assert ys.size, "the body part is not in the frame"
        centres.append((xs.mean(), ys.mean()))
    spread = np.ptp(np.asarray(centres), axis=0)
    return float(spread.max())


def assert_plays_the_frames(
    webm: Path, gif: Path, frames: list[np.ndarray], key: tuple[int, int, int]
) -> None:
    """The WebM (decoded by libvpx, its alpha included) and the GIF play the sheet's
    frames: as many, the same size, clear where the sheet's frames are clear (VP9 is
    lossy: its alpha rings a few levels round a hard edge, under 16 of 255, which no
    eye sees; the GIF's alpha is one bit) and no key colour or green showing."""
    from tests.support.media import decode_rgba

    played, _, pix = decode_rgba(webm, "libvpx-vp9")
    assert pix == "yuva420p" and len(played) == len(frames), (webm, pix, len(played))
    with Image.open(gif) as opened:
        assert opened.n_frames == len(frames), (gif, opened.n_frames)
        shown = []
        for index in range(opened.n_frames):
            opened.seek(index)
            shown.append(np.asarray(opened.convert("RGBA")))
    for index, (wanted, video, picture) in enumerate(zip(frames, played, shown, strict=True)):
        alpha = wanted[..., 3].astype(int)
        for name, seen, levels in (("webm", video, 16), ("gif", picture, 0)):
            assert seen.shape == wanted.shape, (name, index, seen.shape)
            got = seen[..., 3].astype(int)
            border = np.concatenate([got[0], got[-1], got[:, 0], got[:, -1]])
            assert border.max() <= levels, (name, index, "alpha on the frame's border")
            assert (got[alpha == 0] <= levels).mean() > 0.99, (name, index, "a box around it")
            solid = seen[got > 200][:, :3].astype(int)
            for colour in (key, GREEN):
                near = np.abs(solid - np.array(colour)).max(axis=1) < 60
                assert not near.any(), (name, index, colour, int(near.sum()))
        assert np.abs(video[..., 3].astype(int) - alpha).mean() < 3, index
        one_bit = (picture[..., 3] > 0) != (alpha >= 128)
        assert one_bit.mean() < 0.02, index


def frame_sizes(sheet_json: Path) -> set[tuple[int, int]]:
    frames = json.loads(sheet_json.read_text())["frames"]
    # The whole frame's size: an engine pack's sheet is trimmed, its place kept.
    return {(f["sourceSize"]["w"], f["sourceSize"]["h"]) for f in frames.values()}


def corners(sheet: Path) -> list[int]:
    with Image.open(sheet) as opened:
        rgba = opened.convert("RGBA")
        w, h = rgba.size
        return [int(rgba.getpixel(p)[3]) for p in ((0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1))]
