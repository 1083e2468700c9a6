"""The distance transform registration weighs a character's core by (media/depth.py)
gives every pixel's exact distance to the outside, as measured the slow way."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from companion.media.motion.depth import depth


def slow_depth(inside: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """Each inside pixel's distance to every outside pixel, the least kept."""
    outside = np.argwhere(~inside)
    result = np.zeros(inside.shape)
    for y, x in np.argwhere(inside):
        result[y, x] = np.sqrt(((outside - (y, x)) ** 2).sum(axis=1).min())
    return result


def shapes() -> list[npt.NDArray[np.bool_]]:
    rng = np.random.default_rng(7)
    made = []
    for _ in range(40):
        height, width = (int(side) for side in rng.integers(1, 40, 2))
        made.append(rng.random((height, width)) < rng.uniform(0.2, 0.99))  # speckle
        ys, xs = np.mgrid[:height, :width]
        across, down = (xs - width / 2) / (width / 2.2), (ys - height / 2) / (height / 2.2)
        ellipse = across**2 + down**2
        made.append(ellipse < 1)  # a blob
    body = np.zeros((60, 30), dtype=bool)
    body[5:55, 10:20] = True  # a torso taller than wide: the nearest outside is sideways
    body[20:24, 1:29] = True  # thin arms
    made += [body, body.T, np.ones((1, 1), dtype=bool), np.zeros((5, 7), dtype=bool)]
    return [np.pad(shape, 1) for shape in made]


def test_depth_is_the_exact_distance_to_the_outside() -> None:
    for index, inside in enumerate(shapes()):
        measured = depth(inside)
        assert measured.dtype == np.float64
        np.testing.assert_array_equal(measured, slow_depth(inside), err_msg=f"shape {index}")


def test_depth_of_a_disc_grows_to_its_radius() -> None:
    ys, xs = np.mgrid[:101, :101]
    disc = np.hypot(ys - 50, xs - 50) <= 40
    measured = depth(disc)
    assert measured[50, 50] == pytest.approx(41.0, abs=1.0)
    assert measured[50, 10] == 1.0  # on the rim
    assert measured[0, 0] == 0.0


def test_a_large_box_gives_the_same_depths() -> None:
    # Past 362 px a side the squared distances no longer fit 16 bits: the same shapes
    # in a wide ring of outside must keep their depths.
    for index, inside in enumerate(shapes()[:20]):
        wide = np.pad(inside, ((200, 180), (190, 210)))
        assert wide.shape[0] ** 2 + wide.shape[1] ** 2 >= 4 * 65536
        region = depth(wide)[200 : 200 + inside.shape[0], 190 : 190 + inside.shape[1]]
        np.testing.assert_array_equal(region, depth(inside), err_msg=f"shape {index}")


def test_a_rectangle_is_as_deep_as_its_nearest_side() -> None:
    inside = np.zeros((402, 602), dtype=bool)
    inside[1:-1, 1:-1] = True
    ys, xs = np.mgrid[:402, :602]
    nearest = np.minimum.reduce([ys, 401 - ys, xs, 601 - xs]).astype(np.float64)
    np.testing.assert_array_equal(depth(inside), nearest)
