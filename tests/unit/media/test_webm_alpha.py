"""The WebM with alpha, written with its two VP9 streams apart: decoded by libvpx, each
frame must come back with its colour and its alpha at its display time, whether the
alpha stream was encoded beside the colour stream or after it (large frames), and the
two schedules must write the same blocks."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest

from companion.media.formats.webm_alpha import ONE_ENCODER_FROM, WebmAlphaWriter
from tests.support.media import decode_rgba

WIDTH, HEIGHT = 160, 96
DURATIONS = (0.1,) * 9 + (0.04,)  # a short final frame stays short


def _frame(index: int) -> np.ndarray:
    """An orange disc with a soft rim moving right over a transparent frame."""
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    distance = np.hypot(yy - 48, xx - (40 + 8 * index))
    frame = np.zeros((HEIGHT, WIDTH, 4), dtype=np.uint8)
    frame[..., :3] = [230, 120, 40]
    frame[..., 3] = np.clip((30 - distance) * 64, 0, 255).astype(np.uint8)
    return frame


def _write(path: Path, one_encoder_at_a_time: bool) -> Path:
    writer = WebmAlphaWriter(path, WIDTH, HEIGHT, 10.0, DURATIONS, one_encoder_at_a_time)
    for index in range(len(DURATIONS)):
        writer.add(index, _frame(index))
    return writer.close()


@pytest.mark.parametrize("one_encoder_at_a_time", [False, True])
def test_each_frame_comes_back_with_its_alpha_and_time(
    tmp_path: Path, one_encoder_at_a_time: bool
) -> None:
    path = _write(tmp_path / "a.webm", one_encoder_at_a_time)
    frames, times, pix = decode_rgba(path, "libvpx-vp9")
    assert pix == "yuva420p" and len(frames) == len(DURATIONS)
    assert times == pytest.approx(np.cumsum((0.0, *DURATIONS[:-1])).tolist(), abs=0.001)
    with av.open(str(path)) as container:  # the last frame keeps its own time
        assert container.duration == pytest.approx(sum(DURATIONS) * 1e6, abs=2000)
    for index, seen in enumerate(frames):
        wanted = _frame(index)
        alpha = seen[..., 3].astype(int)
        assert np.abs(alpha - wanted[..., 3]).mean() < 2, index
        assert (alpha[wanted[..., 3] == 0] <= 8).mean() > 0.99, index  # no box around it
        inside = wanted[..., 3] == 255
        colour = np.abs(seen[..., :3].astype(int) - wanted[..., :3])[inside]
        assert colour.mean() < 4, index


def _blocks(path: Path) -> list[tuple[int | None, bytes, bytes]]:
    """Each block's time, colour picture and alpha picture (the file's own identifiers,
    which the muxer draws at random, apart)."""
    with av.open(str(path)) as container:
        return [
            (p.pts, bytes(p), bytes(p.get_sidedata("matroska_block_additional")))
            for p in container.demux(container.streams.video[0])
            if p.size
        ]


def test_both_schedules_write_the_same_blocks(tmp_path: Path) -> None:
    alongside = _blocks(_write(tmp_path / "alongside.webm", one_encoder_at_a_time=False))
    after = _blocks(_write(tmp_path / "after.webm", one_encoder_at_a_time=True))
    assert len(alongside) == len(DURATIONS) and alongside == after
    assert all(alpha.startswith(b"\0" * 7 + b"\1") for _, _, alpha in after)  # ID 1


def test_large_frames_take_one_encoder_at_a_time(tmp_path: Path) -> None:
    side = int(ONE_ENCODER_FROM**0.5)
    large = WebmAlphaWriter(tmp_path / "l.webm", side, side, 10.0, (0.1,))
    small = WebmAlphaWriter(tmp_path / "s.webm", side, side - 2, 10.0, (0.1,))
    assert large._alpha is None and small._alpha is not None
