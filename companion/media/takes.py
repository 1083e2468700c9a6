"""With loop: the selection decoded once, with a thumbnail of each frame for the loop
search, and the decoded frames kept for the export.

The loop can only be chosen once every frame has been seen, and decoding the video a
second time for the chosen span costs a quarter of a whole export (decoding is most of
it). So the first pass keeps the decoded frames, and the export scales the chosen ones
from there, as it would while decoding: a frame the loop leaves out is never scaled
(scaling every frame of the selection was most of the loop search's cost). They are held
in memory up to HELD_BYTES (a 5 s clip of 1024 px frames fits), and beyond that scaled
to the output size and written to a spill file in the staging folder (writing costs
about as much CPU as scaling), so memory stays bounded however long the clip is."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path

import av
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
SCALERS = 2
AREA = Interpolation.AREA
Thumb = npt.NDArray[np.float32]


class Takes:
    """The frames of [start, end) of a video, by their time: decoded, to be scaled by
    `shaper` when the export takes them."""

    def __init__(self, folder: Path, name: str) -> None:
        self.path = folder / f".{name}.takes"
        self.times: list[float] = []
        self.thumbs: list[npt.NDArray[np.float32]] = []
        self._held: list[av.VideoFrame] = []  # decoded, not yet scaled
        self._spilled: npt.NDArray[np.uint8] | None = None
        self._shaper: FrameShaper | None = None

    def read(self, source: Path, start: float, end: float, shaper: FrameShaper) -> None:
        self._shaper = shaper
        held = 0
        shape: tuple[int, ...] = ()
        mine = threading.local()  # each scaling thread's own scalers (one caller each)

        def take(frame: av.VideoFrame, spill: bool) -> tuple[Thumb, RGBA | None]:
            scalers: tuple[VideoReformatter, VideoReformatter] | None
            scalers = getattr(mine, "scalers", None)
            if scalers is None:
                # Kept for the whole pass: frame.reformat() sets up a scaler per frame,
                # which cost three times the scaling itself.
                scalers = mine.scalers = (VideoReformatter(), VideoReformatter())
            small = scalers[0].reformat(
                frame, width=2 * THUMB, height=2 * THUMB, format="rgba", interpolation=AREA
            )
            thumb = thumbnail(np.asarray(small.to_ndarray(), dtype=np.uint8))
            return thumb, shaper.scale(frame, scalers[1]) if spill else None

        # Thumbnails (and the frames to spill) are scaled on SCALERS threads while this
        # one decodes (libswscale lets go of the GIL), in order, a few in flight: the
        # pass is not one long chain on one core before the export can start.
        pending: deque[tuple[float, av.VideoFrame, Future[tuple[Thumb, RGBA | None]]]]
        pending = deque()
        with self.path.open("wb") as spill, ThreadPoolExecutor(SCALERS, "takes") as pool:

            def keep(limit: int) -> None:
                """Frames taken, oldest first, until at most `limit` are in flight."""
                nonlocal shape
                while len(pending) > limit:
                    at, frame, job = pending.popleft()
                    thumb, scaled = job.result()
                    if scaled is None:
                        self._held.append(frame)
                    else:
                        shape = scaled.shape
                        spill.write(np.ascontiguousarray(scaled).data)
                    self.thumbs.append(thumb)
                    self.times.append(at)

            for current in iter_source_frames(source, start, end):
                frame = current.frame
                size = sum(plane.buffer_size for plane in frame.planes)
                # Held in order while they fit; once one spills, every later one does.
                spills = held + size > HELD_BYTES
                held = held + size if not spills else HELD_BYTES + 1
                job = pool.submit(take, frame, spills)
                pending.append((max(start, current.time), frame, job))
                keep(2 * SCALERS)
            keep(0)
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
            assert self._shaper is not None
            return self._shaper.scale(self._held[serial])  # on the export's decoding thread
        assert self._spilled is not None
        return np.asarray(self._spilled[serial - len(self._held)])

    def close(self) -> None:
        self._held, self._spilled = [], None
        self.path.unlink(missing_ok=True)
