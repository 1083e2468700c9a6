"""ProRes at its fixed finest quantiser takes any picture: noise, the busiest there is,
is written without overflowing the encoder's buffer and decodes close to the frames."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np

from companion.media.formats.video import prores_writer


def test_noise_frames_encode_and_decode(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    frames = [rng.integers(0, 256, (256, 256, 4), dtype=np.uint8) for _ in range(3)]
    writer = prores_writer(tmp_path / "noise.mov", 256, 256, 24.0, (1 / 24,) * 3)
    for index, frame in enumerate(frames):
        writer.add(index, frame)
    path = writer.close()
    with av.open(str(path)) as container:
        decoded = [f.to_ndarray(format="rgba") for f in container.decode(video=0)]
    assert len(decoded) == 3
    for ours, want in zip(decoded, frames, strict=True):
        # Alpha is stored at 16 bits and comes back within the 8 -> 10 -> 8 bit rounding;
        # colour goes through 10-bit 4:4:4 YUV.
        assert int(np.abs(ours[..., 3].astype(int) - want[..., 3]).max()) <= 1
        assert float(np.abs(ours[..., :3].astype(int) - want[..., :3]).mean()) < 0.5
