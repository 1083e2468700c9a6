"""Chroma key with soft edges and spill removal.

The key is a direction in the chroma (Cb, Cr) plane. A pixel's chroma distance from the
key decides its alpha, with a smooth ramp between two thresholds for soft edges.
Half-covered edge pixels are un-mixed from the key colour, and pixels whose hue lies
near the key's lose the chroma they have along the key direction (spill), so no
coloured fringe or cast survives. Fully keyed and clean pixels, nearly all of a frame,
take only a table lookup or the cheap distance test; the costly steps run on the few
edge and spill pixels."""

from __future__ import annotations

import itertools
import re

import numpy as np
import numpy.typing as npt

from companion.media.errors import MediaError
from companion.media.keying.edge_unmix import unmix_rim

RGBA = npt.NDArray[np.uint8]

# BT.601 full-range RGB -> (Cb, Cr), and the RGB change of a unit CbCr change at fixed Y.
_CB = np.array([-0.168736, -0.331264, 0.5], dtype=np.float32)
_CR = np.array([0.5, -0.418688, -0.081312], dtype=np.float32)
_CBCR_TO_RGB = np.array([[0.0, 1.402], [-0.344136, -0.714136], [1.772, 0.0]], dtype=np.float32)


BAND_ROWS = 64
# Colours are grouped in cells of 4x4x4 levels (the top 6 bits of each channel). A cell
# whose every colour is keyed out is settled by one table lookup, without the per-pixel
# test: a green screen is nearly all such pixels.
CELL_BITS = 6
# The per-pixel test runs in float32; this margin (in chroma units, against a threshold
# of tens) covers its rounding many times over.
ROUNDING_MARGIN = 0.01
# Bands whose colour cells are looked up at once.
LOOKUP_BANDS = 4
HEX_COLOUR = re.compile(r"[0-9a-fA-F]{6}")


def parse_hex_colour(text: str, label: str = "key colour") -> tuple[int, int, int]:
    """#rrggbb (or rrggbb) as levels; label names what held it in the error."""
    value = text.strip().lstrip("#")
    if not HEX_COLOUR.fullmatch(value):  # int() alone would take "+1" or "1_"
        said = f"{label} {text!r} is not a colour such as #00ff00 (a hex colour, #rrggbb)"
        raise MediaError(said)
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


class ChromaKeyer:
    """Keys one colour out of RGBA uint8 frames. Thresholds are fractions of the key's
    own chroma length, so they mean the same for a vivid green and a duller blue."""

    def __init__(self, key: tuple[int, int, int], inner: float = 0.20, outer: float = 0.44) -> None:
        self.key = np.array(key, dtype=np.float32)
        key_chroma = np.array([_CB @ self.key, _CR @ self.key], dtype=np.float32)
        length = float(np.hypot(*key_chroma))
        if length < 0.05 * 255:
            raise MediaError("the key colour is a grey; choose a saturated colour such as #00ff00")
        self._key_cb, self._key_cr = float(key_chroma[0]), float(key_chroma[1])
        self._dir = key_chroma / length
        self._inner = inner * length
        self._outer = outer * length
        self._may_keep = self._cells_that_may_keep()

    def _cells_that_may_keep(self) -> npt.NDArray[np.bool_]:
        """For each colour cell (indexed r, g, b by their top bits), whether any of its
        colours might lie beyond the inner threshold. A colour is at most half the cell's
        diagonal from the cell's centre, and its chroma at most the chroma map's norm
        times that from the centre's: a cell whose centre is further than this inside
        the threshold is keyed out whole."""
        step = 1 << (8 - CELL_BITS)
        centre = np.arange(1 << CELL_BITS, dtype=np.float64) * step + (step - 1) / 2
        weights = np.stack([_CB, _CR]).astype(np.float64)
        reach = float(np.linalg.norm(weights, 2)) * (step - 1) / 2 * np.sqrt(3)
        r, g, b = centre[:, None, None], centre[None, :, None], centre[None, None, :]
        cb = weights[0, 0] * r + weights[0, 1] * g + weights[0, 2] * b - self._key_cb
        cr = weights[1, 0] * r + weights[1, 1] * g + weights[1, 2] * b - self._key_cr
        may_keep = np.hypot(cb, cr) + reach + ROUNDING_MARGIN > self._inner
        return np.ascontiguousarray(may_keep).reshape(-1)

    def apply(self, rgba: RGBA) -> RGBA:
        height, width = rgba.shape[:2]
        out = np.zeros(rgba.shape, dtype=np.uint8)
        if out.size == 0:
            return out
        # A pixel as one little-endian word (r in the low byte): gathered and written
        # whole.
        word = np.ascontiguousarray(rgba).reshape(-1, 4).view("<u4").reshape(-1)
        out_word = out.reshape(-1, 4).view("<u4").reshape(-1)
        # Pixels whose colour cell may be kept take the distance test; the rest are
        # keyed out already (zero). Looked up a few bands at a time, so the scratch stays
        # small whatever the frame size; the test then runs a band at a time, so the
        # matrix products below see the rows they always saw.
        band = BAND_ROWS * width
        for chunk in range(0, height * width, LOOKUP_BANDS * band):
            words = word[chunk : chunk + LOOKUP_BANDS * band]
            candidates = np.flatnonzero(self._may_keep[_cells(words)])
            candidates += chunk
            starts = np.searchsorted(candidates, np.arange(chunk, chunk + len(words) + band, band))
            for first, last in itertools.pairwise(starts):
                if last > first:
                    self._key_band(word, candidates[first:last], out_word)
        unmix_rim(rgba, out, self.key)  # blends with colours far from the key's hue
        return out

    def _key_band(
        self,
        word: npt.NDArray[np.uint32],
        candidates: npt.NDArray[np.intp],
        out: npt.NDArray[np.uint32],
    ) -> None:
        """Key the candidate pixels of one band into out (all words)."""
        tested_words = word[candidates]  # gathered as words: one index per pixel
        tested = tested_words.view(np.uint8).reshape(-1, 4)
        r, g, b = (tested[:, c].astype(np.float32) for c in range(3))
        cb_all, cr_all = _mix(_CB, r, g, b), _mix(_CR, r, g, b)
        dx = np.subtract(cb_all, self._key_cb, dtype=np.float32)
        dy = np.subtract(cr_all, self._key_cr, dtype=np.float32)
        distance = np.hypot(dx, dy, out=dx)

        # Only kept pixels (alpha > 0) have work left; keyed ones stay zero. The steps
        # below are the same element-wise arithmetic on that subset, in pixel order.
        inside = np.flatnonzero(distance > np.float32(self._inner))
        if inside.size == 0:
            return
        kept = candidates[inside]
        near = distance[inside]
        alpha = np.clip((near - self._inner) / (self._outer - self._inner), 0.0, 1.0)
        shown = tested_words[inside].view(np.uint8).reshape(-1, 4)
        rgb = shown[:, :3].astype(np.float32)
        cb = cb_all[inside]
        cr = cr_all[inside]

        # Edge pixels: observed = a * foreground + (1 - a) * key, solved for foreground.
        edge = alpha < 1.0
        if edge.any():
            a = alpha[edge][:, None]
            rgb[edge] = (rgb[edge] - (1.0 - a) * self.key) / a
            cb[edge] = rgb[edge] @ _CB
            cr[edge] = rgb[edge] @ _CR
        # Spill: chroma along the key direction, in kept pixels whose hue is within 60
        # degrees of the key's (fully at the key's hue), so a yellow or teal subject
        # keeps its colour.
        along = cb * self._dir[0] + cr * self._dir[1]
        spill = along > 0.5 * np.hypot(cb, cr)
        if spill.any():
            length = np.maximum(np.hypot(cb[spill], cr[spill]), 1e-3)
            amount = along[spill] * np.clip((along[spill] / length - 0.5) * 2.0, 0.0, 1.0)
            delta = amount[:, None] * self._dir[None, :]  # CbCr to take away
            rgb[spill] -= delta @ _CBCR_TO_RGB.T

        # Written whole pixels at a time, as words.
        result = np.empty((kept.size, 4), dtype=np.uint8)
        np.add(rgb, np.float32(0.5), out=rgb)
        result[:, :3] = np.clip(rgb, 0, 255, out=rgb)
        source_alpha = shown[:, 3].astype(np.float32)
        result[:, 3] = np.clip(alpha * source_alpha + 0.5, 0, 255)
        out[kept] = result.view("<u4").reshape(-1)


def _cells(words: npt.NDArray[np.uint32]) -> npt.NDArray[np.uint32]:
    """Each pixel's colour cell: the top CELL_BITS of r, g and b, in that order."""
    drop = 8 - CELL_BITS
    top = ((1 << CELL_BITS) - 1) << drop
    cells = np.bitwise_and(words, top)
    cells <<= 2 * CELL_BITS - drop
    part = np.bitwise_and(words, top << 8)
    part >>= 8 + drop - CELL_BITS
    cells |= part
    np.bitwise_and(words, top << 16, out=part)
    part >>= 16 + drop
    cells |= part
    return cells


def _mix(
    weights: npt.NDArray[np.float32],
    r: npt.NDArray[np.float32],
    g: npt.NDArray[np.float32],
    b: npt.NDArray[np.float32],
) -> npt.NDArray[np.float32]:
    """weights[0] * r + weights[1] * g + weights[2] * b, in that order, one buffer reused."""
    total: npt.NDArray[np.float32] = np.multiply(r, weights[0])
    part = np.multiply(g, weights[1])
    total += part
    np.multiply(b, weights[2], out=part)
    total += part
    return total
