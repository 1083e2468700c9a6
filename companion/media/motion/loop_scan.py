"""With loop: the selection read once for the loop search, a thumbnail of each frame.

The loop can only be chosen once every frame has been seen, so this pass runs before the
export and nothing overlaps it: it is made as light as it can be. Nothing is kept but
the thumbnails (a few kilobytes a frame), so memory does not grow with the clip. The
decoder skips its deblocking filter (a quarter of H.264's decoding; it moves pixels at
block edges by a few levels, which block means of 32 px blocks do not see), and the
thumbnails of 4:2:0 frames are taken from their planes (media/plane_thumbs.py) rather
than scaled to RGBA first. The export then decodes the chosen span exactly, as any
export does, its decoding side by side with the encoders. Holding the decoded frames
for it instead was dearer: 180 MB of fresh pages for a 5 s clip of 1024 px frames cost
more CPU in page faults than decoding the span again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
from av.video.reformatter import Interpolation, VideoReformatter

from companion.media.errors import MediaError
from companion.media.motion.loop import THUMB, thumbnail
from companion.media.source.decode import iter_source_frames
from companion.media.source.plane_thumbs import plane_thumbnail
from companion.media.source.sampling import EPSILON


class LoopScan:
    """The time and thumbnail of every frame of [start, end) of a video."""

    def __init__(self, source: Path, start: float, end: float) -> None:
        self.times: list[float] = []
        self.thumbs: list[npt.NDArray[np.float32]] = []
        scaler = VideoReformatter()  # kept for the pass: one per frame costs 3x the scaling
        for current in iter_source_frames(source, start, end, exact=False):
            frame = current.frame
            thumb = plane_thumbnail(frame)
            if thumb is None:  # another pixel layout: scaled to RGBA by libswscale
                small = scaler.reformat(
                    frame,
                    width=2 * THUMB,
                    height=2 * THUMB,
                    format="rgba",
                    interpolation=Interpolation.AREA,
                )
                thumb = thumbnail(np.asarray(small.to_ndarray(), dtype=np.uint8))
            self.thumbs.append(thumb)
            self.times.append(max(start, current.time))
        if not self.times:
            raise MediaError("the selection holds no decodable frame")

    def shown(self, instants: npt.ArrayLike) -> npt.NDArray[np.intp]:
        """The frame shown at each instant: the last one at or before it."""
        after = np.searchsorted(np.asarray(self.times), np.asarray(instants) + EPSILON, "right")
        return np.maximum(after - 1, 0)
