"""Seamless loops: the span of the clip whose end flows back into its start.

Image-to-video clips start on the still, settle, and only then move in cycles, so their
first frame rarely follows their last. Before the export, the selection is read once
into thumbnails (media/loop_scan.py; a few kilobytes a frame), and every span (a, b) is
scored by how well frame b, the one that would follow the loop's last frame, matches its
first frame a, the frames around both included (so a pose passed through in the
opposite direction does not count as a match). The best
closing spans are then sampled as the export will sample them and judged on the exported
frames: their seam (the last into the first) over their median step is best at 1, where
it flows like any other step; 0 is a held pose and more is a jump. Of those within
SEAM_SLACK of the best, the longest span wins (two cycles beat one), then the earliest.

The exported frames' own seam is measured again on what was written, and reported."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from companion.media.errors import MediaError
from companion.media.formats.common import RGBA
from companion.media.source.block_sums import block_sums
from companion.media.source.sampling import SamplePlan

THUMB = 32
SAMPLES = 4
SEAM_SLACK = 0.25  # in median steps
MAX_JUDGED = 64  # spans sampled and judged, the best closing first
MIN_SHARE = 4  # a loop spans at least a quarter of the selection's frames
Thumbs = npt.NDArray[np.float32]


@dataclass(frozen=True)
class LoopChoice:
    start: float  # seconds: the loop's first frame
    end: float  # seconds: the frame that would follow its last (the start again)
    seam: float  # in median steps


def thumbnail(frame: RGBA) -> npt.NDArray[np.float32]:
    """A frame as THUMB x THUMB premultiplied RGBA (block means), flattened."""
    h, w = frame.shape[:2]
    # Large frames are first thinned to SAMPLES rows and columns a block: the mean of 16
    # pixels a block is as good a thumbnail, at a fraction of the arithmetic.
    step = max(1, min(h, w) // (THUMB * SAMPLES))
    frame = frame[::step, ::step]
    h, w = frame.shape[:2]
    if h % THUMB == 0 and w % THUMB == 0:  # the usual sizes: no index lists
        # The sums of whole numbers are exact in float32, so the means are those of any
        # order.
        by, bx = h // THUMB, w // THUMB
        small = block_sums(frame, by, bx, np.float32)
        small /= by * bx
    else:
        ys = (np.arange(THUMB) * h) // THUMB
        xs = (np.arange(THUMB) * w) // THUMB
        small = np.add.reduceat(np.add.reduceat(frame.astype(np.float32), ys, axis=0), xs, axis=1)
        counts = np.diff(np.append(ys, h))[:, None] * np.diff(np.append(xs, w))[None, :]
        small /= counts[..., None]
    alpha = small[..., 3:4] / 255.0
    return np.concatenate([small[..., :3] * alpha, small[..., 3:4]], axis=2).ravel()


def distances(thumbs: Thumbs) -> npt.NDArray[np.float64]:
    """Root-mean-square distance between every pair of thumbnails, from their exact
    differences in float64, a row at a time on this thread. A matrix product (|a|^2 +
    |b|^2 - 2ab) would be faster, but it wakes OpenBLAS's threads, whose spinning cost
    ten times the arithmetic; SciPy's pairwise loop cost half a second to load."""
    x = thumbs.astype(np.float64)
    count = len(x)
    squared = np.zeros((count, count))
    scratch = np.empty_like(x)
    for i in range(count - 1):
        diff = np.subtract(x[i + 1 :], x[i], out=scratch[: count - i - 1])
        squared[i, i + 1 :] = np.einsum("ij,ij->i", diff, diff)
    squared += squared.T
    rms: npt.NDArray[np.float64] = np.sqrt(squared / max(1, x.shape[1]))
    return rms


def median_step(d: npt.NDArray[np.float64]) -> float:
    steps = [float(d[i, i + 1]) for i in range(len(d) - 1)]
    return max(statistics.median(steps), 1e-9) if steps else 1e-9


def seam_of(thumbs: list[npt.NDArray[np.float32]]) -> float:
    """The last frame into the first, in median steps between neighbours."""
    if len(thumbs) < 2:
        return 0.0
    d = distances(np.stack(thumbs))
    return float(d[-1, 0]) / median_step(d)


def best_span(
    d: npt.NDArray[np.float64], picks: Callable[[int, int], list[int]]
) -> tuple[int, int, float]:
    """(a, b, seam): frames a..b-1 loop, b being a frame like a. `picks(a, b)` are the
    frames the export would take from that span: the seam is judged on them, as the
    last exported frame into the first, since sampling may skip frames near the end."""
    count = len(d)
    step = median_step(d)
    shortest = max(2, count // MIN_SHARE)
    a, b = np.triu_indices(count, k=shortest)
    if a.size == 0:
        return 0, count - 1, float(d[count - 1, 0]) / step
    # The frames around the seam must match too (a+-1 with b+-1), or a pose passed
    # through in the opposite direction (a swing's way back) would pass for a match.
    before = np.where(a > 0, d[np.maximum(a - 1, 0), b - 1], d[a, b])
    after_ = np.where(b + 1 < count, d[a + 1, np.minimum(b + 1, count - 1)], d[a, b])
    closes = (before + d[a, b] + after_) / (3 * step)
    # Only spans that close about as well as the best are sampled and judged.
    near = np.flatnonzero(closes <= closes.min() + 1.0)
    near = near[np.argsort(closes[near], kind="stable")][:MAX_JUDGED]
    judged: list[tuple[float, int, int, float]] = []
    for k in near:
        first, after = int(a[k]), int(b[k])
        taken = picks(first, after)
        steps = [d[i, j] for i, j in pairwise(taken)]
        if not steps:
            continue
        seam = float(d[taken[-1], first]) / max(statistics.median(steps), 1e-9)
        judged.append((float(closes[k]) + abs(seam - 1.0), first, after, seam))
    if not judged:
        return 0, count - 1, float(d[count - 1, 0]) / step
    # A seam like any other step (1) is best: 0 is a held pose, more a jump. Of those
    # within the slack of the best, the longest span, then the earliest.
    best = min(j[0] for j in judged)
    _, first, after, seam = min(
        (j for j in judged if j[0] <= best + SEAM_SLACK), key=lambda j: (j[1] - j[2], j[1])
    )
    return first, after, seam


class SeamMeter:
    """A frame sink keeping a thumbnail of each exported frame, for their seam."""

    def __init__(self) -> None:
        self.thumbs: list[npt.NDArray[np.float32]] = []

    def add(self, index: int, frame: RGBA) -> None:
        self.thumbs.append(thumbnail(frame))

    def seam(self) -> float:
        return seam_of(self.thumbs)


def choose_loop(
    times: list[float],
    thumbs: list[npt.NDArray[np.float32]],
    plan: Callable[[float, float], SamplePlan],
    shown: Callable[[tuple[float, ...]], npt.NDArray[np.intp]],
) -> LoopChoice:
    """The seamless span of frames at `times` (with their thumbnails); plan(start, end)
    samples a span as the export will, shown(instants) names the frames it shows."""
    if len(times) < 3:
        raise MediaError("the selection holds too few frames to look for a loop in")

    def picks(a: int, b: int) -> list[int]:
        return [max(a, int(i)) for i in shown(plan(times[a], times[b]).times)]

    a, b, seam = best_span(distances(np.stack(thumbs)), picks)
    return LoopChoice(times[a], times[b], seam)
