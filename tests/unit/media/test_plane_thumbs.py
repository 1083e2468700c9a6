"""The loop search's thumbnails taken from a frame's YUV planes are the thumbnails of its
RGBA pixels: the same block means, in the same colours, whatever matrix and range the
frame was encoded with."""

from __future__ import annotations

import av
import numpy as np
import pytest

from companion.media.motion.loop import THUMB, thumbnail
from companion.media.source.plane_thumbs import plane_thumbnail


def patches(side: int, alpha: bool) -> np.ndarray:
    """Flat colours in blocks of 64 px (so 4:2:0 and the thinning see them whole)."""
    rng = np.random.default_rng(5)
    # Inside the gamut every YUV matrix maps back to: no colour clipped on the way.
    colours = rng.integers(40, 216, (side // 64, side // 64, 4), dtype=np.uint8)
    colours[..., 3] = rng.choice([0, 128, 255], colours.shape[:2]) if alpha else 255
    return np.repeat(np.repeat(colours, 64, axis=0), 64, axis=1)


@pytest.mark.parametrize(
    ("pixel_format", "colorspace", "color_range"),
    [
        ("yuv420p", None, None),  # unspecified: BT.601, limited, as libswscale reads it
        ("yuv420p", "ITU709", "MPEG"),
        ("yuv420p", "ITU601", "JPEG"),
        ("yuvj420p", None, None),
        ("yuva420p", None, None),
    ],
)
def test_plane_thumbnails_match_the_rgba_thumbnails(
    pixel_format: str, colorspace: str | None, color_range: str | None
) -> None:
    rgba = patches(512, alpha=pixel_format == "yuva420p")
    frame = av.VideoFrame.from_ndarray(rgba, format="rgba").reformat(
        format=pixel_format, dst_colorspace=colorspace, dst_color_range=color_range
    )
    from_planes = plane_thumbnail(frame)
    assert from_planes is not None
    got = from_planes.reshape(THUMB, THUMB, 4)
    expected = thumbnail(rgba).reshape(THUMB, THUMB, 4)
    # Blocks inside a patch (4 blocks a side), clear of the chroma filters at its edges:
    # 8-bit YUV holds each colour to within a level or two of its RGB there. A wrong
    # matrix or range is off by 10 to 40 levels on these colours.
    inside = np.isin(np.arange(THUMB) % 4, (1, 2))
    error = np.abs(got - expected)[inside][:, inside]
    assert error.max() <= 2.5, error.max()


def test_other_frames_are_left_to_the_scaler() -> None:
    rgba = patches(256, alpha=False)
    assert plane_thumbnail(av.VideoFrame.from_ndarray(rgba, format="rgba")) is None
    odd = av.VideoFrame.from_ndarray(rgba[:200, :200].copy(), format="rgba")
    assert plane_thumbnail(odd.reformat(format="yuv420p")) is None  # 100 px chroma: no blocks
    whole = av.VideoFrame.from_ndarray(rgba, format="rgba").reformat(format="yuv420p")
    thumb = plane_thumbnail(whole)
    assert thumb is not None and thumb.shape == (THUMB * THUMB * 4,)
