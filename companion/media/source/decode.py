"""Decode a video once, in order, and pick the sampled frames while decoding.

Only the frames that are shown at a sampled instant are ever converted to pixels; the
rest pass through as packets-to-frames and are dropped at once, so memory stays flat in
the video's length. Given the sampled instants, the decoder is also told to skip every
frame that is neither shown nor referred to by another frame (H.264's and HEVC's
non-reference frames, most B-frames): an export that keeps one frame in five decodes
about 60 % of the frames, for 40 % less decoding, and the frames it keeps are
bit for bit those of a full decode, since no kept frame was predicted from a skipped one.
That holds for streams that decode cleanly. Where damage keeps a frame from coming out
of the decoder, the frame before it shows in its place, and that one may have been
skipped, so an earlier one shows; damage inside a skipped packet goes unreported."""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import cast

import av
import numpy as np
from av.video.codeccontext import VideoCodecContext

from companion.media.errors import MediaError
from companion.media.source.sampling import EPSILON

# Selections starting later than this (seconds) are reached by seeking.
SEEK_FROM = 0.5
# Codecs whose packets are one frame each, with the pts of that frame, and whose
# decoders skip exactly the frames nothing refers to when told NONREF. (A VP9 packet may
# carry a hidden frame with the shown one; an AVI's MPEG-4 packet a packed B-frame.)
ONE_FRAME_A_PACKET = frozenset({"h264", "hevc"})


@dataclass
class SourceFrame:
    """A decoded frame and its time in seconds from the start of the video."""

    time: float
    frame: av.VideoFrame
    serial: int


class _Video:
    """A video file opened at its first video stream, at the keyframe before `seek_to`
    seconds when given; seconds() turns the stream's timestamps into seconds from its
    start, the one reckoning of the decoding and of the packets read ahead of it."""

    def __init__(self, path: Path, seek_to: float | None) -> None:
        try:
            self.container = av.open(str(path))
        except av.error.FFmpegError as exc:
            raise MediaError(f"{path}: not a readable video") from exc
        self.stream = self.container.streams.video[0]
        time_base = self.stream.time_base
        if time_base is None:
            self.container.close()
            raise MediaError(f"{path}: the video stream has no time base")
        self.time_base = time_base
        start = self.stream.start_time
        self.base = float(start * time_base) if start else 0.0
        if seek_to is not None:
            # The keyframe before the selection; frames before it are never decoded.
            target = int((seek_to + self.base) / time_base)
            try:
                self.container.seek(target, stream=self.stream, backward=True)
            except BaseException:
                self.container.close()
                raise

    def seconds(self, pts: int) -> float:
        return float(pts * self.time_base) - self.base


def _alpha_decoder(stream: av.video.stream.VideoStream, threads: bool) -> VideoCodecContext | None:
    # FFmpeg's native VP9/VP8 decoders drop the alpha side data; libvpx keeps it.
    if str(stream.metadata.get("alpha_mode", "")) != "1":
        return None
    name = {"vp9": "libvpx-vp9", "vp8": "libvpx"}.get(stream.codec_context.name)
    if name is None:
        return None
    ctx = cast(VideoCodecContext, av.CodecContext.create(name, "r"))
    ctx.extradata = stream.codec_context.extradata
    if not threads:
        ctx.thread_count = 1
    return ctx


def iter_source_frames(
    path: Path,
    start: float,
    end: float,
    threads: bool = True,
    exact: bool = True,
    shown_at: Sequence[float] | None = None,
) -> Iterator[SourceFrame]:
    """Every frame whose display interval meets [start, end), in presentation order.
    threads=False decodes on the calling thread alone: when the encoders downstream keep
    every core busy, the decoder's frame threads only add hand-offs and frames held.
    exact=False skips the deblocking filter (H.264 and HEVC; a quarter of their decoding),
    for frames only looked at, never exported. With `shown_at` (instants, seconds), the
    frames shown at none of them may be left out where the decoder can skip them.

    A selection starting after SEEK_FROM seconds is reached by seeking to the keyframe
    before it. Where that lands after the start (an MPEG-TS seek before its first
    keyframe finds nothing; a stream refreshed by slices has no keyframe to land on),
    the selection is decoded from the beginning instead."""
    if start > SEEK_FROM:
        frames = _selection(path, start, end, threads, exact, shown_at, seek=True)
        first = next(frames, None)
        if first is not None and first.time <= start + EPSILON:
            yield first
            yield from frames
            return
        frames.close()
    yield from _selection(path, start, end, threads, exact, shown_at, seek=False)


def _selection(
    path: Path,
    start: float,
    end: float,
    threads: bool,
    exact: bool,
    shown_at: Sequence[float] | None,
    seek: bool,
) -> Generator[SourceFrame, None, None]:
    video = _Video(path, start if seek else None)
    with video.container:
        stream = video.stream
        stream.thread_type = "AUTO" if threads else "NONE"
        if not exact:
            stream.codec_context.options = {"skip_loop_filter": "all"}
        decoder = _alpha_decoder(stream, threads)
        shown = None
        if shown_at is not None and stream.codec_context.name in ONE_FRAME_A_PACKET:
            shown = _shown_pts(path, start if seek else None, shown_at)
        pending: SourceFrame | None = None
        serial = 0
        try:
            for frame in _frames(video.container, stream, decoder, shown):
                if frame.pts is None:
                    continue
                time = video.seconds(frame.pts)
                if time >= end - EPSILON:
                    break
                current = SourceFrame(time, frame, serial)
                serial += 1
                if time <= start + EPSILON:
                    pending = current  # still before or at the start: keep the latest
                    continue
                if pending is not None:
                    yield pending
                    pending = None
                yield current
        except av.error.FFmpegError as exc:
            raise MediaError(f"{path}: the video is damaged and cannot be decoded") from exc
        if pending is not None:
            yield pending


def _frames(
    container: av.container.InputContainer,
    stream: av.video.stream.VideoStream,
    decoder: VideoCodecContext | None,
    shown: set[int] | None,
) -> Iterator[av.VideoFrame]:
    decoder = decoder or stream.codec_context  # libvpx for VP9 alpha (never skipped)
    for packet in container.demux(stream):
        if shown is not None:
            # A packet is one frame, its pts the frame's: the setting rides with it,
            # through the decoder's frame threads too.
            needed = packet.pts is None or packet.pts in shown
            decoder.skip_frame = "DEFAULT" if needed else "NONREF"
        yield from decoder.decode(packet)


def _shown_pts(path: Path, seek_to: float | None, instants: Sequence[float]) -> set[int] | None:
    """The pts of the frames shown at `instants` (the last frame at or before each, the
    first frame for one before it), from the packets alone, read from where the decoding
    seeks to until none can be shown any more: no decoding. None when the packets do not
    tell: a packet without a time, or times that never go back in decode order. Where
    frames are reordered, a B-frame's packet comes after the later frame it is predicted
    from, so its pts goes back; times that only rise are either a stream without
    reordering (nothing worth skipping) or decode times written as display times (an
    AVI's B-frames, a muxer that wrote no composition offsets), which would name the
    wrong frames."""
    last = max(instants, default=0.0) + EPSILON
    every: list[int | None] = []
    try:
        video = _Video(path, seek_to)
        with video.container:
            for packet in video.container.demux(video.stream):
                if not packet.size:
                    continue
                every.append(packet.pts)
                # Decode times only rise, and no frame is shown before it is decoded:
                # past the last instant, no later packet holds a frame shown at one.
                if packet.dts is not None and video.seconds(packet.dts) > last:
                    break
    except (MediaError, av.error.FFmpegError):
        return None
    known = [pts for pts in every if pts is not None]
    if not known or len(known) < len(every):
        return None
    if all(a <= b for a, b in pairwise(known)):
        return None
    pts = np.unique(np.asarray(known, dtype=np.int64))
    times = np.asarray([video.seconds(p) for p in pts.tolist()])
    at = np.searchsorted(times, np.asarray(instants, dtype=np.float64) + EPSILON, "right") - 1
    return {int(p) for p in pts[np.maximum(at, 0)]}


class SamplePicker:
    """Matches decoded frames to sampled instants as the frames stream past.

    The frame shown at instant t is the last one whose time is at or before t; an
    instant before the first frame gets the first frame. Each matched pair is handed out
    as soon as it is certain, so at most one decoded frame is held back."""

    def __init__(self, times: Sequence[float]) -> None:
        self._times = times
        self._index = 0
        self._previous: SourceFrame | None = None

    @property
    def done(self) -> bool:
        return self._index >= len(self._times)

    def push(self, current: SourceFrame) -> list[tuple[int, SourceFrame]]:
        matched: list[tuple[int, SourceFrame]] = []
        times = self._times
        while self._index < len(times) and times[self._index] < current.time - EPSILON:
            matched.append((self._index, self._previous or current))
            self._index += 1
        self._previous = current
        return matched

    def finish(self) -> list[tuple[int, SourceFrame]]:
        if self.done:
            return []
        if self._previous is None:
            raise MediaError("the selection holds no decodable frame")
        rest = [(i, self._previous) for i in range(self._index, len(self._times))]
        self._index = len(self._times)
        return rest
