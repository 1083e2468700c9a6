"""With loop: the selection decoded once, every frame scaled to the output size and kept,
with a thumbnail of each for the loop search.

The loop can only be chosen once every frame has been seen, and decoding the video a
second time for the chosen span costs a quarter of a whole export (decoding is most of
it). So the first pass keeps what the export needs of each frame, its scaled pixels, and
the export takes the chosen ones from there. They are held in memory up to HELD_BYTES
(a 5 s clip of 512 px frames fits), and written to a spill file in the staging folder
beyond that (writing costs about as much CPU as scaling), so memory stays bounded
however long the clip is."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import numpy as np
import numpy.typing as npt
from av.video.reformatter import Interpolation, VideoReformatter

from companion.media.decode import iter_source_frames
from companion.media.errors import MediaError
from companion.media.formats.common import RGBA
from companion.media.frames import FrameShaper
from companion.media.loop import THUMB, thumbnail
from companion.media.sampling import EPSILON, SamplePlan

HELD_BYTES = 192 << 20


class Takes:
    """The frames of [start, end) of a video, scaled by `shaper`, by their time."""

    def __init__(self, folder: Path, name: str) -> None:
        self.path = folder / f".{name}.takes"
        self.times: list[float] = []
        self.thumbs: list[npt.NDArray[np.float32]] = []
        self._held: list[RGBA] = []
        self._spilled: npt.NDArray[np.uint8] | None = None

    def read(self, source: Path, start: float, end: float, shaper: FrameShaper) -> None:
        held = 0
        shape: tuple[int, ...] = ()
        # One scaler for every thumbnail: frame.reformat() sets up a scaler per frame,
        # which cost three times the scaling itself.
        thumbs = VideoReformatter()
        with self.path.open("wb") as spill:
            for current in iter_source_frames(source, start, end):
                small = thumbs.reformat(
                    current.frame,
                    width=2 * THUMB,
                    height=2 * THUMB,
                    format="rgba",
                    interpolation=Interpolation.AREA,
                )
                self.thumbs.append(thumbnail(np.asarray(small.to_ndarray(), dtype=np.uint8)))
                scaled = shaper.scale(current.frame)
                shape = scaled.shape
                if held + scaled.nbytes <= HELD_BYTES:
                    self._held.append(scaled)
                    held += scaled.nbytes
                else:
                    spill.write(np.ascontiguousarray(scaled).data)
                self.times.append(max(start, current.time))
        if not self.times:
            raise MediaError("the selection holds no decodable frame")
        if len(self.times) > len(self._held):
            pixels = np.memmap(self.path, dtype=np.uint8, mode="r")
            self._spilled = pixels.reshape(len(self.times) - len(self._held), *shape)

    def shown(self, instants: npt.ArrayLike) -> npt.NDArray[np.intp]:
        """The frame shown at each instant: the last one at or before it."""
        after = np.searchsorted(np.asarray(self.times), np.asarray(instants) + EPSILON, "right")
        return np.maximum(after - 1, 0)

    def picked(self, plan: SamplePlan) -> Iterator[tuple[int, int, Callable[[], RGBA]]]:
        """(output index, frame serial, its scaled pixels) for each of the plan's instants."""
        for index, serial in enumerate(self.shown(plan.times)):
            yield index, int(serial), partial(self._pixels, int(serial))

    def _pixels(self, serial: int) -> RGBA:
        if serial < len(self._held):
            return self._held[serial]
        assert self._spilled is not None
        return np.asarray(self._spilled[serial - len(self._held)])

    def close(self) -> None:
        self._held, self._spilled = [], None
        self.path.unlink(missing_ok=True)
