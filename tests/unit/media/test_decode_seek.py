"""A selection that starts late is reached by seeking to the keyframe before it; where
the seek lands after the start, it is decoded from the beginning instead, and either way
its frames are those of a decode from the beginning."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.media.source.decode import iter_source_frames
from tests.support.media import write_moving_bar

FPS = 24


def _frames(source: Path, start: float, end: float) -> list[tuple[float, np.ndarray]]:
    return [(f.time, f.frame.to_ndarray()) for f in iter_source_frames(source, start, end)]


@pytest.mark.parametrize(
    ("name", "keyframe_every"),
    [
        ("late.ts", 250),  # one keyframe: MPEG-TS's seek before it found nothing
        ("late.mp4", 250),
        ("keyframes.ts", 12),
        ("keyframes.mp4", 12),
    ],
)
def test_a_late_selection_has_the_frames_of_a_decode_from_the_start(
    tmp_path: Path, name: str, keyframe_every: int
) -> None:
    options = {"g": str(keyframe_every), "bf": "3", "preset": "veryfast"}
    source = write_moving_bar(tmp_path / name, "libx264", options, frames=72, size=96)
    start, end = 1.1, 2.3
    late = _frames(source, start, end)
    whole = _frames(source, 0.0, 3.0)
    # The selection begins with the frame shown at its start, then every frame up to end.
    expected = [
        (time, pixels)
        for index, (time, pixels) in enumerate(whole)
        if time < end - 1e-6
        and (time > start + 1e-6 or index + 1 == len(whole) or whole[index + 1][0] > start + 1e-6)
    ]
    assert late, "a late selection decoded nothing"
    assert late[0][0] <= start
    assert [time for time, _ in late] == [time for time, _ in expected]
    for (_, want), (_, got) in zip(expected, late, strict=True):
        assert np.array_equal(want, got)
