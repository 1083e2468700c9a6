"""Video outputs: the H.264 clip of the selection and ProRes 4444 (VP9 with alpha is
webm_alpha.py).

The alpha videos carry the sampled frames with their exact display times (a short final
frame stays short); the clip carries every source frame of the selection."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import cast

import av
from av.video.reformatter import Interpolation, VideoReformatter
from av.video.stream import VideoStream

from companion.media.formats.common import RGBA
from companion.media.frames import Fit, even
from companion.media.source.decode import SourceFrame

MILLIS = Fraction(1, 1000)
CLIP_TIME_BASE = Fraction(1, 90000)
PRORES_THREADS = 6
# libavcodec takes a fixed quantiser as a "lambda": FF_QP2LAMBDA times the quantiser.
LAMBDA_PER_QUANT = 118
FINEST_QUANT = 1


def nominal_rate(fps: float) -> Fraction:
    return Fraction(fps).limit_denominator(1001)


def display_pts(durations: tuple[float, ...]) -> list[int]:
    """Each frame's start in milliseconds, and the end of the last: frame i shows from
    pts[i] to pts[i + 1], rounded from the summed times so no error accumulates."""
    starts = [0.0]
    for duration in durations:
        starts.append(starts[-1] + duration)
    return [round(t * 1000) for t in starts]


class SampledVideoWriter:
    """Encodes RGBA frames at given display durations into one container."""

    def __init__(
        self,
        path: Path,
        *,
        codec: str,
        pix_fmt: str,
        width: int,
        height: int,
        fps: float,
        durations: tuple[float, ...],
        options: dict[str, str],
        container_options: dict[str, str] | None = None,
        threads: int = 0,
        thread_type: str = "AUTO",
    ) -> None:
        self.path = path
        self._container = av.open(str(path), "w", options=container_options or {})
        self._stream = cast(VideoStream, self._container.add_stream(codec, rate=nominal_rate(fps)))
        self._stream.width, self._stream.height = width, height
        self._stream.pix_fmt = pix_fmt
        self._stream.time_base = MILLIS
        self._stream.codec_context.time_base = MILLIS
        self._stream.options = dict[str, object](options)
        self._stream.codec_context.thread_type = thread_type
        self._stream.codec_context.thread_count = threads  # 0: one per core
        self._pts = display_pts(durations)
        self._next = 0

    def add(self, index: int, frame: RGBA) -> None:
        if index != self._next:
            raise RuntimeError("frames must arrive in order")
        video = av.VideoFrame.from_ndarray(frame, format="rgba")
        video.pts = self._pts[index]
        video.time_base = MILLIS
        video.duration = self._pts[index + 1] - self._pts[index]
        self._mux(video)
        self._next += 1

    def _mux(self, frame: av.VideoFrame | None) -> None:
        for packet in self._stream.encode(frame):
            self._container.mux(packet)

    def close(self) -> Path:
        self._mux(None)
        self._container.close()
        return self.path


def prores_writer(
    path: Path, width: int, height: int, fps: float, durations: tuple[float, ...]
) -> SampledVideoWriter:
    return SampledVideoWriter(
        path,
        codec="prores_ks",
        pix_fmt="yuva444p10le",
        width=width,
        height=height,
        fps=fps,
        durations=durations,
        # The finest quantiser, fixed: it is what the rate control settles on for sprite
        # frames anyway (the decoded pixels are the same), and the rate control's search
        # over quantisers took four fifths of the encoder's time. A busier picture makes
        # a larger file rather than a coarser one, which suits a master format.
        options={
            "profile": "4444",
            "alpha_bits": "16",
            "vendor": "apl0",
            "flags": "+qscale",
            "global_quality": str(FINEST_QUANT * LAMBDA_PER_QUANT),
        },
        # ProRes is the costliest writer and its slices are independent (the bytes do
        # not depend on how many encode at once): more workers than cores keep it from
        # falling behind the other writers on a machine busy with other work. Slice
        # threads only: frame threads would each hold a frame and its packet buffer.
        threads=PRORES_THREADS,
        thread_type="SLICE",
    )


class ClipWriter:
    """H.264 of every source frame in the selection, fitted inside the output box."""

    def __init__(
        self,
        path: Path,
        src_w: int,
        src_h: int,
        box_w: int,
        box_h: int,
        start: float,
        fps: float,
        pixel_art: bool,
    ) -> None:
        fit = Fit.inside(src_w, src_h, box_w, box_h)
        self.width, self.height = even(fit.width), even(fit.height)
        self.path = path
        self.start = start
        self.interpolation = Interpolation.POINT if pixel_art else Interpolation.AREA
        self._container = av.open(str(path), "w", options={"movflags": "+faststart"})
        self._stream = self._container.add_stream("libx264", rate=nominal_rate(fps or 24))
        self._stream.width, self._stream.height = self.width, self.height
        self._stream.pix_fmt = "yuv420p"
        self._stream.time_base = CLIP_TIME_BASE
        self._stream.codec_context.time_base = CLIP_TIME_BASE
        self._stream.options = {"crf": "18", "preset": "veryfast"}
        # One thread: the export's other writers keep the cores busy, and x264's frame
        # threads each held frames (10 MB at 512 px) for no gain in the export's time.
        self._stream.codec_context.thread_count = 1
        self._last_pts = -1
        self._scaler = VideoReformatter()  # owned: see FrameShaper

    def add(self, source: SourceFrame) -> None:
        pts = max(0, round((source.time - self.start) / CLIP_TIME_BASE))
        if pts <= self._last_pts:
            return  # a frame from before the selection that the next one replaces
        frame = self._scaler.reformat(
            source.frame,
            width=self.width,
            height=self.height,
            format="yuv420p",
            interpolation=self.interpolation,
        )
        frame.pts = pts
        frame.time_base = CLIP_TIME_BASE
        self._last_pts = pts
        for packet in self._stream.encode(frame):
            self._container.mux(packet)

    def close(self) -> Path:
        for packet in self._stream.encode(None):
            self._container.mux(packet)
        self._container.close()
        return self.path
