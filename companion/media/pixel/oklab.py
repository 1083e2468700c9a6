"""sRGB to OKLab, vectorised: distances there follow how far apart colours look, so the
nearest palette colour is the one a person would pick."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]

_TO_LMS = np.array(
    [
        [0.4122214708, 0.5363325363, 0.0514459929],
        [0.2119034982, 0.6806995451, 0.1073969566],
        [0.0883024619, 0.2817188376, 0.6299787005],
    ],
    dtype=np.float32,
)
_TO_LAB = np.array(
    [
        [0.2104542553, 0.7936177850, -0.0040720468],
        [1.9779984951, -2.4285922050, 0.4505937099],
        [0.0259040371, 0.7827717662, -0.8086757660],
    ],
    dtype=np.float32,
)


def linear(rgb: npt.ArrayLike) -> Floats:
    """sRGB levels (0 to 255, any shape ending in 3) as linear light, 0 to 1."""
    c = np.asarray(rgb, dtype=np.float32) / 255.0
    curved: Floats = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return curved.astype(np.float32)


def oklab(rgb: npt.ArrayLike) -> Floats:
    """sRGB levels (any shape ending in 3) in OKLab (L 0 to 1)."""
    lms: Floats = linear(rgb) @ _TO_LMS.T
    lab: Floats = np.cbrt(lms) @ _TO_LAB.T
    return lab.astype(np.float32)
