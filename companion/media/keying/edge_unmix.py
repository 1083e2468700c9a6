"""A keyed character's rim, un-mixed against its own colours.

A generated clip is drawn, scaled and softened on the key colour, so the pixels of the
character's rim are blends of a colour of the character and the key. The keyer's alpha
comes from a pixel's chroma distance to the key, which is right for colours near the
key's hue but wrong for a blend with a colour far from it: half blue shirt and half green
key is a teal that is as far from green as the shirt itself, and was kept whole, a teal
outline round a blue shirt. Here each rim pixel (within RIM pixels of the keyed-out
background) looks at the solid pixels of the character beside it, nearest first. Where
its chroma lies on the line from the key's to one of theirs (within OFF_LINE of its
length) and its luma near the same blend of the two lumas (LUMA_SLACK), it is that
blend: it takes the character's colour, and as alpha the share of it, read from the
chroma, or from the luma where that says more (a video keeps luma whole but smears and
rings its chroma, at half the size each way: a dark outline's rim reads as a blend in
chroma alone). A rim pixel that is no such blend (a dark outline beside a light fill, a
thin strand with no solid pixel near) is left as the keyer made it.

Cost: the rim is a thin band, so the work is a few vector steps over its pixels for each
neighbour looked at, inside the character's box."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from companion.media.formats.common import RGBA

# How far (pixels, either axis) from the background a pixel may be a blend: two, as an
# H.264 clip's colour, kept at half the size each way, bleeds a pixel or two across the
# rim (one deep was a little nearer on full colour, far from it on 4:2:0).
RIM = 2
OFF_LINE = 0.12  # how far off the key-to-colour line a blend may lie, as a share of it
# How far a blend's luma may lie from the blend of the two lumas: a video's own ringing
# brightens or darkens a rim by tens of levels, and a dark outline beside a light fill
# lies a hundred or more away.
LUMA_SLACK = 48.0
# RGB to luma, Cb and Cr (BT.601): the share is read in chroma, which a video smears but
# never rings far, and held to the luma loosely.
_YCC = np.array(
    [[0.299, 0.587, 0.114], [-0.168736, -0.331264, 0.5], [0.5, -0.418688, -0.081312]],
    dtype=np.float32,
)
# A colour closer to the key than this (chroma levels) cannot be told from it by its blend.
MIN_CONTRAST = 32.0
TRIES = 3  # solid neighbours asked, nearest first, whether a rim pixel is their blend


def _ring(reach: int) -> npt.NDArray[np.int32]:
    """The (dy, dx) at `reach` pixels along either axis (a square's outline), nearest
    first."""
    steps = [
        (dy, dx)
        for dy in range(-reach, reach + 1)
        for dx in range(-reach, reach + 1)
        if max(abs(dy), abs(dx)) == reach
    ]
    return np.array(sorted(steps, key=lambda s: s[0] * s[0] + s[1] * s[1]), dtype=np.int32)


# A rim pixel `depth` pixels from the background meets the solid pixels (more than RIM
# from it) first on the ring RIM + 1 - depth around it: that ring is where it looks.
_RINGS = {depth: _ring(RIM + 1 - depth) for depth in range(1, RIM + 1)}


def unmix_rim(observed: RGBA, keyed: RGBA, key: npt.NDArray[np.float32]) -> None:
    """Re-set in `keyed` (the keyer's result for `observed`) the alpha and colour of the
    rim pixels that are blends of a solid neighbour's colour and the key."""
    alpha = keyed[..., 3]
    shown_rows = alpha.any(axis=1)
    if not shown_rows.any():
        return
    # The character's box and a ring of RIM around it (the frame's edge is not key).
    top, bottom = _span(shown_rows, RIM, alpha.shape[0])
    left, right = _span(alpha[top:bottom].any(axis=0), RIM, alpha.shape[1])
    box_alpha = alpha[top:bottom, left:right]
    kept = box_alpha > 0
    within = [~kept]  # within[d]: at most d pixels from the background
    for _ in range(RIM):
        within.append(_grown(within[-1], 1))
    solid = (box_alpha == 255) & ~within[RIM]
    if not solid.any():
        return
    # Read as flat rows of pixels (one index a pixel is cheaper than two); written back
    # into the frame through `made`.
    seen = np.ascontiguousarray(observed[top:bottom, left:right])
    made = keyed[top:bottom, left:right]
    # The solid mask with a ring of RIM around it (past the frame's edge nothing is).
    width = solid.shape[1] + 2 * RIM
    ringed = np.zeros((solid.shape[0] + 2 * RIM, width), dtype=np.bool_)
    ringed[RIM:-RIM, RIM:-RIM] = solid
    for depth in range(1, RIM + 1):
        at_depth = kept & within[depth] & ~within[depth - 1]
        _unmix(np.flatnonzero(at_depth), _RINGS[depth], seen, made, ringed.ravel(), key)
    # (made's colours are read as they were: a pixel is only ever asked of solid ones,
    # which no depth changes.)


def _unmix(
    at: npt.NDArray[np.intp],
    ring: npt.NDArray[np.int32],
    seen: RGBA,
    made: RGBA,
    solid: npt.NDArray[np.bool_],
    key: npt.NDArray[np.float32],
) -> None:
    """The rim pixels at flat indices `at` of the box, each asked of the solid pixels on
    its ring (flat `solid`, of the box with a ring of RIM around it)."""
    if not at.size:
        return
    width = seen.shape[1]
    pixels = seen.reshape(-1, 4)
    ys, xs = np.divmod(at, width)
    mixed = (pixels[at, :3].astype(np.float32) - key) @ _YCC.T  # from the key, as YCbCr
    wide = width + 2 * RIM
    around = ((ys + RIM) * wide + (xs + RIM))[:, None] + (ring[:, 0] * wide + ring[:, 1])
    usable = solid[around]
    share = np.ones(ys.size, dtype=np.float32)
    colour = np.zeros((ys.size, 3), dtype=np.float32)
    # The nearest solid neighbour whose colour explains the pixel, of the first TRIES:
    # nearly every pixel is settled by its nearest (one of the character's own colour is
    # explained whole), so the next are asked only of the few it does not explain.
    open_ = np.flatnonzero(usable.any(axis=1))
    for _ in range(TRIES):
        if not open_.size:
            break
        nearest = usable[open_].argmax(axis=1)
        cy, cx = np.divmod(around[open_, nearest], wide)
        neighbour = (cy - RIM) * width + (cx - RIM)
        # The neighbour's colour from the key, as luma and chroma (YCbCr, BT.601).
        towards = (pixels[neighbour, :3].astype(np.float32) - key) @ _YCC.T
        chroma = towards[:, 1:]
        length2 = np.maximum(np.einsum("ij,ij->i", chroma, chroma), 1.0)
        asked = mixed[open_]
        along = np.einsum("ij,ij->i", asked[:, 1:], chroma) / length2
        rest = asked[:, 1:] - along[:, None] * chroma  # the chroma the blend does not explain
        off2 = np.einsum("ij,ij->i", rest, rest)
        luma_off = np.abs(asked[:, 0] - along * towards[:, 0])
        explained = (
            (off2 <= OFF_LINE**2 * length2)
            & (length2 >= MIN_CONTRAST**2)
            & (along >= 0)
            & (luma_off <= LUMA_SLACK)
        )
        settled = open_[explained]
        # Luma is kept whole by a video: where it tells the two apart, a pixel as dark
        # (or light) as the character's colour is that much of it, though its chroma
        # was smeared toward the key's (a dark outline's rim stays opaque).
        lumas = towards[explained, 0]
        by_luma = np.where(
            np.abs(lumas) >= MIN_CONTRAST, asked[explained, 0] / np.where(lumas == 0, 1, lumas), 0
        )
        share[settled] = np.maximum(along[explained], np.clip(by_luma, 0.0, 1.0))
        colour[settled] = made[cy[explained] - RIM, cx[explained] - RIM, :3]
        usable[open_, nearest] = False
        open_ = open_[~explained]
        open_ = open_[usable[open_].any(axis=1)]
    blend = share < 1.0
    ys, xs, share, colour = ys[blend], xs[blend], share[blend], colour[blend]
    source_alpha = pixels[ys * width + xs, 3].astype(np.float32)
    made[ys, xs, :3] = np.clip(colour + 0.5, 0, 255).astype(np.uint8)
    made[ys, xs, 3] = np.clip(share * source_alpha + 0.5, 0, 255).astype(np.uint8)


def _span(filled: npt.ArrayLike, grow: int, size: int) -> tuple[int, int]:
    """[first - grow, last + 1 + grow) of the true entries of a line, inside [0, size)."""
    where = np.flatnonzero(filled)
    return max(0, int(where[0]) - grow), min(size, int(where[-1]) + 1 + grow)


def _grown(mask: npt.NDArray[np.bool_], reach: int) -> npt.NDArray[np.bool_]:
    """mask grown by `reach` pixels along both axes (a square of side 2 * reach + 1)."""
    rows = mask.copy()
    for step in range(1, reach + 1):
        rows[step:] |= mask[:-step]
        rows[:-step] |= mask[step:]
    grown = rows.copy()
    for step in range(1, reach + 1):
        grown[:, step:] |= rows[:, :-step]
        grown[:, :-step] |= rows[:, step:]
    return grown
