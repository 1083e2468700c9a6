"""A loop-search thumbnail straight from a decoded frame's YUV planes.

The loop's first pass makes a thumbnail of every frame of the selection (120 for a 5 s
clip, where the export keeps 24). Scaling each frame to RGBA in libswscale first cost as
much as decoding it; here each plane's block sums are taken in NumPy (rows summed in
groups over contiguous memory, one read of the plane), and only the THUMB x THUMB block
means are turned into RGB, by the same matrix libswscale uses. The result is the block
means of the frame's RGBA, premultiplied, as `loop.thumbnail` gives them, to within
rounding. Frames in other layouts return None and are scaled as before."""

from __future__ import annotations

import av
import numpy as np
import numpy.typing as npt

from companion.media.motion.loop import SAMPLES, THUMB
from companion.media.source.block_sums import block_sums

Thumb = npt.NDArray[np.float32]

# Kr, Kb of the YUV matrices, by FFmpeg's colorspace numbers (AVColorSpace); an
# unspecified one is read as BT.601, as libswscale reads it.
_BT709, _BT601, _BT2020 = (0.2126, 0.0722), (0.299, 0.114), (0.2627, 0.0593)
_MATRICES = {1: _BT709, 5: _BT601, 6: _BT601, 9: _BT2020, 10: _BT2020}
_FULL_RANGE = 2  # AVCOL_RANGE_JPEG
_PLANAR_420 = {"yuv420p": False, "yuvj420p": False, "yuva420p": True}


def plane_thumbnail(frame: av.VideoFrame) -> Thumb | None:
    """THUMB x THUMB premultiplied RGBA block means of an 8-bit 4:2:0 frame whose planes
    split into whole blocks, flattened; None for any other frame."""
    name = frame.format.name
    if name not in _PLANAR_420:
        return None
    planes = frame.planes
    if any(plane.width % THUMB or plane.height % THUMB for plane in planes):
        return None
    luma, u, v = (_block_means(plane) for plane in planes[:3])
    kr, kb = _MATRICES.get(int(frame.colorspace), _BT601)
    if name == "yuvj420p" or int(frame.color_range) == _FULL_RANGE:
        y, cb, cr = luma / 255, (u - 128) / 255, (v - 128) / 255
    else:
        y, cb, cr = (luma - 16) / 219, (u - 128) / 224, (v - 128) / 224
    red = y + 2 * (1 - kr) * cr
    blue = y + 2 * (1 - kb) * cb
    green = (y - kr * red - kb * blue) / (1 - kr - kb)
    rgb = np.clip(np.stack([red, green, blue], axis=2) * 255, 0, 255)
    if _PLANAR_420[name]:
        alpha = _block_means(planes[3])[..., None]
    else:
        alpha = np.full((THUMB, THUMB, 1), 255.0)
    thumb = np.concatenate([rgb * (alpha / 255), alpha], axis=2)
    return thumb.astype(np.float32).ravel()


def _block_means(plane: av.video.plane.VideoPlane) -> npt.NDArray[np.float64]:
    """THUMB x THUMB means of a plane's blocks (its sides are whole blocks), each from
    SAMPLES rows and columns of the block, as `loop.thumbnail` thins large frames."""
    height, width = plane.height, plane.width
    data = np.frombuffer(memoryview(plane), dtype=np.uint8)
    pixels = data.reshape(height, plane.line_size)[:, :width]
    by, bx = height // THUMB, width // THUMB
    blocks = pixels.reshape(THUMB, by, THUMB, bx)
    thin = blocks[:, :: max(1, by // SAMPLES), :, :: max(1, bx // SAMPLES)]
    per_y, per_x = thin.shape[1], thin.shape[3]
    # The samples laid out block after block (a small copy), then summed by blocks.
    samples = np.ascontiguousarray(thin).reshape(THUMB * per_y, THUMB * per_x)
    sums = block_sums(samples, per_y, per_x, np.uint32)
    means: npt.NDArray[np.float64] = sums / (per_y * per_x)
    return means
