"""VP9 with alpha in WebM, with the alpha stream encoded apart from the colour stream.

WebM carries alpha as a second VP9 stream: each frame's alpha picture rides beside its
colour picture in the same block (a Matroska BlockAdditional with ID 1). FFmpeg's
encoder runs the two libvpx encoders side by side, and each holds buffers sized by the
frame, cleared at allocation so every page is resident: about 30 MB for the pair at
512x512 and 180 MB at 1024x1024. Here each stream has its own encoder, and from
ONE_ENCODER_FROM pixels on the alpha stream is encoded only once the colour encoder is
gone, from the frames' alpha planes kept deflated (a sprite's mask packs to a few kB):
one encoder's buffers at a time. Both encoders have the settings FFmpeg gives the pair,
and the blocks are muxed as it muxes them."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

import av
import numpy as np
from av.packet import Packet, PacketSideData, packet_sidedata_type_from_literal
from zlib_ng import zlib_ng

from companion.media.formats.common import RGBA
from companion.media.formats.video import MILLIS, display_pts, nominal_rate

if TYPE_CHECKING:  # generic in PyAV's stubs only
    VP9Packet = Packet[Any]

# Constant quality; realtime deadline with cpu-used 8 is several times faster than "good"
# at a small size cost, which suits short sprite loops. No look-ahead and no alternate
# reference: every frame makes exactly one packet, in order, in both streams (which is
# how their packets pair up), and a look-ahead would hold 25 frames in the encoder.
VP9_OPTIONS = {
    "crf": "28",
    "b": "0",
    "deadline": "realtime",
    "cpu-used": "8",
    "auto-alt-ref": "0",
    "lag-in-frames": "0",
}
# The alpha picture travels as a BlockAdditional whose ID (big-endian, 8 bytes) is 1.
ALPHA_BLOCK_ID = (1).to_bytes(8, "big")
_BLOCK_ADDITIONAL = packet_sidedata_type_from_literal("matroska_block_additional")
# Alpha planes are deflated fast: they are read back once.
ALPHA_LEVEL = 1
# libvpx's alpha stream is the alpha plane as luma, with neutral chroma.
NEUTRAL_CHROMA = 128
# From this frame size on (768x768), the alpha stream is encoded after the colour stream:
# the two encoders' buffers grow with the frame (180 MB for the pair at 1024x1024).
ONE_ENCODER_FROM = 768 * 768


def _encoder(width: int, height: int, fps: float) -> av.VideoCodecContext:
    encoder = av.CodecContext.create("libvpx-vp9", "w")
    assert isinstance(encoder, av.VideoCodecContext)
    encoder.width, encoder.height = width, height
    encoder.pix_fmt = "yuv420p"
    encoder.time_base = MILLIS
    encoder.framerate = nominal_rate(fps)
    encoder.options = dict(VP9_OPTIONS)
    # One thread: the other writers keep the cores busy, and libvpx's row threads wait
    # on each other row by row, which stalls the whole export whenever the machine is
    # busy with other work.
    encoder.thread_count = 1
    return encoder


class _AlphaStream:
    """The alpha pictures' encoder: each alpha plane as luma, chroma neutral."""

    def __init__(self, width: int, height: int, fps: float) -> None:
        self._encoder = _encoder(width, height, fps)
        self._size = width, height
        # One picture, refilled: libvpx copies each into its own buffers as it is sent.
        self._video = av.VideoFrame(width, height, "yuv420p")
        self._luma, *chroma = (
            np.frombuffer(memoryview(plane), np.uint8).reshape(-1, plane.line_size)
            for plane in self._video.planes
        )
        for plane in chroma:
            plane[...] = NEUTRAL_CHROMA
        self.packets: list[VP9Packet] = []

    def encode(self, alpha: np.ndarray, pts: int, duration: int) -> None:
        width, height = self._size
        self._luma[:height, :width] = alpha.reshape(height, width)
        self._video.pts, self._video.time_base, self._video.duration = pts, MILLIS, duration
        self.packets += self._encoder.encode(self._video)

    def finish(self) -> list[VP9Packet]:
        self.packets += self._encoder.encode(None)
        return self.packets


class WebmAlphaWriter:
    """Encodes RGBA frames at given display durations into a WebM with alpha.

    Frames of ONE_ENCODER_FROM pixels or more have their alpha stream encoded after the
    colour stream; smaller ones encode both as frames arrive, since two encoders hold
    little there and the alpha pass would otherwise run alone after every other
    writer has finished (0.1 s of a 1.2 s export at 512x512)."""

    def __init__(
        self,
        path: Path,
        width: int,
        height: int,
        fps: float,
        durations: tuple[float, ...],
        one_encoder_at_a_time: bool | None = None,
    ) -> None:
        self.path = path
        self._size = width, height
        self._fps = fps
        self._pts = display_pts(durations)
        self._next = 0
        if one_encoder_at_a_time is None:
            one_encoder_at_a_time = width * height >= ONE_ENCODER_FROM
        self._colour: av.VideoCodecContext | None = _encoder(width, height, fps)
        self._packets: list[VP9Packet] = []
        self._alpha = None if one_encoder_at_a_time else _AlphaStream(width, height, fps)
        self._deflated: list[bytes] = []  # the alpha planes kept for later, in order

    def add(self, index: int, frame: RGBA) -> None:
        if index != self._next or self._colour is None:
            raise RuntimeError("frames must arrive in order, before close")
        pts, duration = self._timing(index)
        video = av.VideoFrame.from_ndarray(frame, format="rgba")
        video.pts, video.time_base, video.duration = pts, MILLIS, duration
        self._packets += self._colour.encode(video)
        alpha = np.ascontiguousarray(frame[..., 3])
        if self._alpha is not None:
            self._alpha.encode(alpha, pts, duration)
        else:
            self._deflated.append(zlib_ng.compress(alpha, ALPHA_LEVEL))
        self._next += 1

    def _timing(self, index: int) -> tuple[int, int]:
        """Frame `index`'s start and display time, in milliseconds."""
        return self._pts[index], self._pts[index + 1] - self._pts[index]

    def close(self) -> Path:
        if self._colour is not None:
            self._packets += self._colour.encode(None)
            self._colour = None  # its buffers are freed before a later alpha encoder's
        if self._alpha is None:
            alpha = _AlphaStream(*self._size, self._fps)
            for index, deflated in enumerate(self._deflated):
                alpha.encode(
                    np.frombuffer(zlib_ng.decompress(deflated), np.uint8), *self._timing(index)
                )
            self._deflated = []
        else:
            alpha = self._alpha
        alphas = alpha.finish()
        del alpha
        self._alpha = None
        if len(alphas) != len(self._packets):
            raise RuntimeError(
                f"VP9 alpha: {len(self._packets)} colour and {len(alphas)} alpha packets"
            )
        self._mux(alphas)
        self._packets = []
        return self.path

    def _mux(self, alphas: list[VP9Packet]) -> None:
        width, height = self._size
        with av.open(str(self.path), "w") as container:
            # A stream made from a template carries the codec's parameters without an
            # encoder of its own (one made by add_stream would open a third libvpx).
            with av.open(io.BytesIO(), "w", format="webm") as scratch:
                template = scratch.add_stream("libvpx-vp9")
                stream = container.add_stream_from_template(template)
            stream.width, stream.height = width, height
            stream.pix_fmt = "yuva420p"  # the muxer marks the track as carrying alpha
            stream.time_base = MILLIS
            stream.codec_context.framerate = nominal_rate(self._fps)
            for index, (colour, alpha) in enumerate(zip(self._packets, alphas, strict=True)):
                pts, duration = self._timing(index)
                if colour.pts != alpha.pts or colour.pts != pts:
                    raise RuntimeError("VP9 alpha: the streams' frames do not pair up")
                # The frame's display time: the muxer would otherwise give every block
                # the stream's nominal one, and the last frame would be cut short.
                colour.duration = duration
                block = ALPHA_BLOCK_ID + bytes(alpha)
                # PyAV's stub omits the constructor's (type, size).
                extra = PacketSideData(_BLOCK_ADDITIONAL, len(block))  # type: ignore[call-arg]
                extra.update(block)
                extra.to_packet(colour, move=True)
                colour.stream = stream
                container.mux(colour)
