"""The GIF keeps a palette across frames only while it serves them: when the colours
change, the frames after the change get a palette of their own."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from companion.media.formats.gif import GifWriter
from tests.support.media import decode_rgba


def _frame(colour: tuple[int, int, int], shade: int) -> np.ndarray:
    frame = np.zeros((48, 64, 4), dtype=np.uint8)
    # A gradient of the colour (many distinct values) on a transparent background.
    ramp = np.linspace(0.3, 1.0, 40)[None, :, None] * np.array(colour)[None, None, :]
    frame[8:40, 12:52, :3] = (ramp + shade).clip(0, 255).astype(np.uint8)
    frame[8:40, 12:52, 3] = 255
    return frame


def test_changed_colours_get_a_new_palette(tmp_path: Path) -> None:
    frames = [_frame((250, 40, 30), i) for i in range(3)] + [
        _frame((20, 60, 240), i) for i in range(3)
    ]
    writer = GifWriter(tmp_path / "a.gif", 64, 48, (0.1,) * len(frames), pixel_art=False)
    for index, frame in enumerate(frames):
        writer.add(index, frame)
    shown_frames, times, _ = decode_rgba(writer.close())
    assert [round(t, 2) for t in times] == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    for ours, want in zip(shown_frames, frames, strict=True):
        shown = want[..., 3] >= 128
        assert np.array_equal(ours[..., 3] >= 128, shown)
        diff = np.abs(ours[..., :3].astype(int) - want[..., :3].astype(int))[shown]
        assert diff.mean() < 2.0
