"""Told which instants are sampled, the decoder skips the frames nobody sees and nothing
refers to, and the frames shown at those instants are exactly those of a full decode."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.media.source.decode import SamplePicker, iter_source_frames
from tests.support.media import write_index_video, write_moving_bar

FPS = 24


def _shown(
    source: Path, start: float, end: float, instants: list[float], threads: bool, skip: bool
) -> tuple[list[tuple[float, np.ndarray]], int]:
    """(time, YUV planes) of the frame shown at each instant, and how many frames the
    decoder handed out."""
    picker = SamplePicker(instants)
    picked: dict[int, tuple[float, np.ndarray]] = {}
    decoded = 0
    frames = iter_source_frames(
        source, start, end, threads=threads, shown_at=instants if skip else None
    )
    for current in frames:
        decoded += 1
        for index, chosen in picker.push(current):
            picked[index] = (chosen.time, chosen.frame.to_ndarray())
    for index, chosen in picker.finish():
        picked[index] = (chosen.time, chosen.frame.to_ndarray())
    return [picked[i] for i in range(len(instants))], decoded


@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize(
    ("start", "end", "instants"),
    [
        (0.0, 2.0, [k * 5 / FPS for k in range(10)]),  # one frame in five, on frame times
        (0.0, 2.0, [0.013 + k * 0.21 for k in range(9)]),  # between frame times
        (0.6, 1.9, [0.6 + k * 0.1 for k in range(13)]),  # after a seek, one in 2.4
    ],
)
def test_the_shown_frames_are_those_of_a_full_decode(
    tmp_path: Path, threads: bool, start: float, end: float, instants: list[float]
) -> None:
    source = write_index_video(tmp_path / "index.mp4", frames=48)
    full, every = _shown(source, start, end, instants, threads, skip=False)
    sparse, fewer = _shown(source, start, end, instants, threads, skip=True)
    assert [time for time, _ in sparse] == [time for time, _ in full]
    for index, ((_, want), (_, got)) in enumerate(zip(full, sparse, strict=True)):
        assert np.array_equal(want, got), f"instant {index}: pixels differ from a full decode"
    # The index video has B-frames that nothing refers to: some were skipped.
    assert fewer < every, (fewer, every)


def test_every_frame_is_decoded_when_every_frame_is_shown(tmp_path: Path) -> None:
    source = write_index_video(tmp_path / "index.mp4", frames=24)
    instants = [k / FPS for k in range(24)]
    sparse, decoded = _shown(source, 0.0, 1.0, instants, threads=False, skip=True)
    assert decoded == 24
    assert [round(time * FPS) for time, _ in sparse] == list(range(24))


def test_an_hevc_source_skips_its_unseen_frames_too(tmp_path: Path) -> None:
    options = {"x265-params": "log-level=error:bframes=3:b-pyramid=1"}
    source = write_moving_bar(tmp_path / "index.mp4", "libx265", options)
    instants = [k * 5 / FPS for k in range(5)]
    full, every = _shown(source, 0.0, 1.0, instants, threads=True, skip=False)
    sparse, fewer = _shown(source, 0.0, 1.0, instants, threads=True, skip=True)
    assert [time for time, _ in sparse] == [time for time, _ in full]
    for index, ((_, want), (_, got)) in enumerate(zip(full, sparse, strict=True)):
        assert np.array_equal(want, got), f"instant {index}: pixels differ from a full decode"
    assert fewer < every == 24


def test_a_vp9_source_is_decoded_whole(tmp_path: Path) -> None:
    """A VP9 packet may carry a hidden frame beside the shown one: nothing is skipped."""
    source = write_moving_bar(tmp_path / "index.webm", "libvpx-vp9", {})
    instants = [k * 5 / FPS for k in range(4)]
    full, every = _shown(source, 0.0, 1.0, instants, threads=False, skip=False)
    sparse, decoded = _shown(source, 0.0, 1.0, instants, threads=False, skip=True)
    assert decoded == every == 24
    assert [time for time, _ in sparse] == [time for time, _ in full]


def test_decode_order_times_are_not_trusted(tmp_path: Path) -> None:
    """An AVI stores no display times: its B-frames' packets carry times in decode order,
    which would name the wrong frames. The whole stream is decoded, as before."""
    options = {"bf": "3", "g": "48", "preset": "veryfast"}
    source = write_moving_bar(tmp_path / "index.avi", "libx264", options, frames=48)
    instants = [k * 5 / FPS for k in range(9)]
    full, every = _shown(source, 0.0, 2.0, instants, threads=False, skip=False)
    sparse, decoded = _shown(source, 0.0, 2.0, instants, threads=False, skip=True)
    assert decoded == every
    assert [time for time, _ in sparse] == [time for time, _ in full]
    for (_, want), (_, got) in zip(full, sparse, strict=True):
        assert np.array_equal(want, got)
