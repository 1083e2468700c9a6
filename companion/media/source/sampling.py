"""Which instants of the source become output frames (spec 2.8 and 2.9).

frame_count mode: N instants spread uniformly over the selection, each shown for D/N.
fps mode: source-speed instants every 1/fps with no interpolation; the final frame is
shortened so that the frames add up to exactly the selection's duration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from companion.media.errors import MediaError

# Instants closer than this to a frame boundary count as on it (float noise).
EPSILON = 1e-6
# The shortest selection: below it every instant is the same and the frame rate runs
# away towards infinity (a 1e-300 s selection is refused, never sampled).
MIN_SELECTION_SECONDS = 0.001


@dataclass(frozen=True)
class SamplePlan:
    start: float
    end: float
    times: tuple[float, ...]
    durations: tuple[float, ...]
    fps: float

    @property
    def count(self) -> int:
        return len(self.times)

    @property
    def duration(self) -> float:
        return self.end - self.start


def selection_bounds(
    video_duration: float, start: float, duration: float | None
) -> tuple[float, float]:
    if start < 0:
        raise MediaError("the selection start must be at least 0 s")
    if start >= video_duration - EPSILON:
        raise MediaError(
            f"the selection starts at {start:g} s but the video ends at {video_duration:.3f} s"
        )
    if duration is not None and not duration >= MIN_SELECTION_SECONDS:
        raise MediaError(
            f"the selection lasts {duration:g} s; give at least {MIN_SELECTION_SECONDS} s"
        )
    end = video_duration if duration is None else min(video_duration, start + duration)
    return start, end


def plan_samples(
    video_duration: float,
    *,
    start: float = 0.0,
    duration: float | None = None,
    frame_count: int | None = None,
    fps: float | None = None,
) -> SamplePlan:
    if (frame_count is None) == (fps is None):
        raise MediaError("give exactly one of frame_count and fps")
    start, end = selection_bounds(video_duration, start, duration)
    span = end - start
    if frame_count is not None:
        if frame_count < 1:
            raise MediaError("frame_count must be at least 1")
        step = span / frame_count
        times = tuple(start + i * step for i in range(frame_count))
        return SamplePlan(start, end, times, (step,) * frame_count, frame_count / span)
    assert fps is not None
    if fps <= 0:
        raise MediaError("fps must be greater than 0")
    count = max(1, math.ceil(span * fps - EPSILON))
    times = tuple(start + i / fps for i in range(count))
    durations = [1 / fps] * count
    durations[-1] = end - times[-1]
    return SamplePlan(start, end, times, tuple(durations), fps)
