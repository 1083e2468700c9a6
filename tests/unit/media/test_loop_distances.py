"""The loop search's distances between frames are the root-mean-square differences of
their thumbnails, exactly as a direct computation gives them."""

from __future__ import annotations

import numpy as np

from companion.media.motion.loop import THUMB, distances, seam_of


def test_distances_are_the_rms_of_the_differences() -> None:
    rng = np.random.default_rng(3)
    thumbs = (rng.random((37, THUMB * THUMB * 4)) * 255).astype(np.float32)
    wide = thumbs.astype(np.float64)
    direct = np.sqrt(((wide[:, None, :] - wide[None, :, :]) ** 2).mean(axis=2))
    measured = distances(thumbs)
    np.testing.assert_allclose(measured, direct, rtol=1e-12, atol=1e-9)
    assert np.array_equal(measured, measured.T)
    assert not measured.diagonal().any()


def test_a_cycle_closes_with_a_seam_like_its_steps() -> None:
    # Frames along a circle: the last into the first is one step like the others.
    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    base = np.zeros(THUMB * THUMB * 4, dtype=np.float32)
    thumbs = []
    for angle in angles:
        frame = base.copy()
        frame[:2] = 100 + 50 * np.cos(angle), 100 + 50 * np.sin(angle)
        thumbs.append(frame)
    assert abs(seam_of(thumbs) - 1.0) < 1e-9
    assert seam_of(thumbs[:7]) > 3  # half a cycle: the seam is a jump
