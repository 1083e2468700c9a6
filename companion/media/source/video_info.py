"""Read what a video is before any work starts, so bad input fails early and cleanly."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import av

from companion.media.errors import MediaError


@dataclass(frozen=True)
class VideoInfo:
    width: int
    height: int
    fps: float
    duration: float
    frame_count: int
    codec: str
    has_alpha: bool

    def as_media(self) -> dict[str, float | int]:
        """The spec's MediaResponse members (spec 2.4)."""
        return {
            "duration_seconds": round(self.duration, 6),
            "fps": self.fps,
            "frame_count": self.frame_count,
            "width": self.width,
            "height": self.height,
        }


def _alpha_flagged(stream: av.video.stream.VideoStream) -> bool:
    # VP8/VP9 carry alpha in side data and only mark the stream; other codecs (ProRes
    # 4444, PNG, GIF) show it in their pixel format.
    if str(stream.metadata.get("alpha_mode", stream.metadata.get("ALPHA_MODE", ""))) == "1":
        return True
    fmt = stream.codec_context.format
    if fmt is None:
        return False
    return bool(fmt.has_palette or any(c.is_alpha for c in fmt.components))


def probe(path: Path) -> VideoInfo:
    if not path.is_file():
        raise MediaError(f"{path}: no such file")
    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise MediaError(f"{path}: has no video stream; give a video file")
            stream = container.streams.video[0]
            rate = stream.average_rate or stream.guessed_rate or stream.base_rate
            fps = float(rate) if rate else 0.0
            duration = _duration(container, stream)
            frames = stream.frames or (round(duration * fps) if fps else 0)
            info = VideoInfo(
                width=stream.codec_context.width,
                height=stream.codec_context.height,
                fps=fps,
                duration=duration,
                frame_count=int(frames),
                codec=stream.codec_context.name,
                has_alpha=_alpha_flagged(stream),
            )
    except MediaError:
        raise
    except (av.error.FFmpegError, UnicodeDecodeError) as exc:
        empty = path.is_file() and path.stat().st_size == 0
        why = "the file is empty" if empty else "damaged, still being written, or not a video"
        raise MediaError(f"{path}: not a readable video ({why}); give a video file") from exc
    if info.width <= 0 or info.height <= 0 or info.duration <= 0 or info.frame_count == 1:
        raise MediaError(f"{path}: is a still image or an empty video; give a video file")
    return info


def _duration(container: av.container.InputContainer, stream: av.video.stream.VideoStream) -> float:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / av.time_base
    return 0.0
