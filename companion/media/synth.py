"""The generation synthesizer: a real, looping H.264 video from a first frame.

It stands in for the remote model in the sandbox. The motion is chosen from the prompt's
words (idle breathing, bob, sway, squash-and-stretch walk, pulse) or, when a last frame
is given, a first-to-last morph; otherwise from a hash of prompt and seed, so the same
request always yields the same video. Every periodic motion completes whole cycles, so
the clip loops without a jump. With a key colour the subject is rendered on it, ready
for a transparent export."""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image

from companion.media.errors import MediaError
from companion.media.frames import even

MOTIONS = ("breathe", "bob", "sway", "walk", "pulse", "morph")
KEYWORDS: dict[str, tuple[str, ...]] = {
    "walk": ("walk", "run", "hop", "jump", "bounce", "march", "step"),
    "sway": ("sway", "wind", "wave", "tree", "grass", "flag", "dance"),
    "bob": ("bob", "float", "hover", "fly", "swim", "levitat"),
    "pulse": ("pulse", "glow", "beat", "heart", "throb", "charge"),
    "breathe": ("breath", "idle", "rest", "stand", "wait"),
}
# Subjects fill this share of the frame so that motion never leaves it.
FILL = 0.82


@dataclass(frozen=True)
class SynthSpec:
    prompt: str = ""
    duration: float = 3.0
    fps: float = 24.0
    seed: int = 0
    width: int = 512
    height: int = 512
    key_color: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class Pose:
    scale_x: float = 1.0
    scale_y: float = 1.0
    angle: float = 0.0  # radians, positive counter-clockwise on screen
    dx: float = 0.0
    dy: float = 0.0  # pixels, positive down
    blend: float = 0.0  # share of the last frame (morph)


def choose_motion(prompt: str, seed: int, has_last_frame: bool) -> str:
    if has_last_frame:
        return "morph"
    words = prompt.lower()
    for motion, keys in KEYWORDS.items():
        if any(key in words for key in keys):
            return motion
    digest = hashlib.sha256(f"{prompt}\x1f{seed}".encode()).digest()
    periodic = [m for m in MOTIONS if m != "morph"]
    return periodic[digest[0] % len(periodic)]


def _pose_function(motion: str, rng: random.Random, height: float) -> Callable[[float], Pose]:
    amp = 0.6 + 0.8 * rng.random()  # the seed varies the strength of the motion
    tau = 2 * math.pi
    if motion == "breathe":
        return lambda p: Pose(
            1 - 0.012 * amp * math.sin(tau * p), 1 + 0.035 * amp * math.sin(tau * p)
        )
    if motion == "bob":
        return lambda p: Pose(dy=-0.05 * amp * height * (0.5 - 0.5 * math.cos(tau * p)))
    if motion == "sway":
        return lambda p: Pose(angle=0.09 * amp * math.sin(tau * p))
    if motion == "walk":

        def walk(p: float) -> Pose:
            step = math.sin(2 * tau * p)  # two steps a cycle
            contact = abs(math.cos(2 * tau * p)) ** 3  # squash at each contact
            return Pose(
                1 + 0.07 * amp * contact,
                1 - 0.09 * amp * contact,
                angle=0.04 * amp * step,
                dy=-0.06 * amp * height * abs(step),
            )

        return walk
    if motion == "pulse":
        return lambda p: Pose(
            1 + 0.06 * amp * math.sin(tau * p), 1 + 0.06 * amp * math.sin(tau * p)
        )
    return lambda p: Pose(
        blend=0.5 - 0.5 * math.cos(math.pi * p), dy=-0.03 * amp * height * math.sin(math.pi * p)
    )


def _prepare(image: Image.Image, width: int, height: int) -> Image.Image:
    rgba = image.convert("RGBA")
    scale = min(width * FILL / rgba.width, height * FILL / rgba.height)
    size = (max(1, round(rgba.width * scale)), max(1, round(rgba.height * scale)))
    layer = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    # Bottom-centred, a little above the bottom edge: where a sprite stands.
    x = (width - size[0]) // 2
    y = height - size[1] - round(height * (1 - FILL) / 4)
    layer.alpha_composite(rgba.resize(size, Image.Resampling.LANCZOS), (x, y))
    return layer


def _background(first: Image.Image, spec: SynthSpec, width: int, height: int) -> Image.Image:
    if spec.key_color is not None:
        return Image.new("RGBA", (width, height), (*spec.key_color, 255))
    rgba = np.asarray(first.convert("RGBA"))
    border = np.concatenate([rgba[0], rgba[-1], rgba[:, 0], rgba[:, -1]])
    opaque = border[border[:, 3] > 0]
    colour = np.median(opaque[:, :3], axis=0) if len(opaque) else np.array([40, 44, 52])
    return Image.new("RGBA", (width, height), (*[int(c) for c in colour], 255))


def _render(layer: Image.Image, pose: Pose, anchor: tuple[float, float]) -> Image.Image:
    ax, ay = anchor
    cos, sin = math.cos(pose.angle), math.sin(pose.angle)
    # Inverse map (output -> input) of: scale about the anchor, rotate, then translate.
    a = cos / pose.scale_x
    b = sin / pose.scale_x
    d = -sin / pose.scale_y
    e = cos / pose.scale_y
    ox, oy = -ax - pose.dx, -ay - pose.dy
    c = a * ox + b * oy + ax
    f = d * ox + e * oy + ay
    return layer.transform(
        layer.size, Image.Transform.AFFINE, (a, b, c, d, e, f), resample=Image.Resampling.BICUBIC
    )


def synthesize(
    first: Image.Image, out: Path, spec: SynthSpec, last: Image.Image | None = None
) -> str:
    """Write the video to `out` and return the name of the motion used."""
    if spec.duration <= 0 or spec.fps <= 0:
        raise MediaError("duration and fps must be greater than 0")
    width, height = even(spec.width), even(spec.height)
    motion = choose_motion(spec.prompt, spec.seed, last is not None)
    digest = hashlib.sha256(f"{spec.prompt}\x1f{spec.seed}\x1fpose".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))  # noqa: S311 - motion, not secrets
    pose_at = _pose_function(motion, rng, height)
    first_layer = _prepare(first, width, height)
    last_layer = _prepare(last, width, height) if last is not None else None
    background = _background(first, spec, width, height)
    anchor = (width / 2, height - height * (1 - FILL) / 4)
    frames = max(1, round(spec.duration * spec.fps))
    rate = Fraction(spec.fps).limit_denominator(1001)
    out.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(out), "w", options={"movflags": "+faststart"}) as container:
        stream = container.add_stream("libx264", rate=rate)
        stream.width, stream.height = width, height
        stream.pix_fmt = "yuv420p"
        stream.options = {"crf": "16", "preset": "veryfast"}
        for i in range(frames):
            phase = i / frames if motion != "morph" else i / max(1, frames - 1)
            pose = pose_at(phase)
            layer = first_layer
            if last_layer is not None and pose.blend > 0:
                layer = Image.blend(first_layer, last_layer, pose.blend)
            canvas = background.copy()
            canvas.alpha_composite(_render(layer, pose, anchor))
            frame = av.VideoFrame.from_ndarray(np.asarray(canvas.convert("RGB")), format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return motion
