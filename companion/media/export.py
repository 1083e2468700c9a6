"""Export a video into any set of the thirteen formats in one decode.

The source is decoded once; each frame shown at a sampled instant is shaped once (fit,
key, letterbox) and handed to every frame writer; sheet-based formats are then written
from the finished pages without touching pixels again. Everything is written into a
staging folder beside the destination and moved in only when all of it succeeded."""

from __future__ import annotations

import re
import shutil
import tempfile
import unicodedata
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from companion.media.chroma import ChromaKeyer
from companion.media.decode import SamplePicker, SourceFrame, iter_source_frames
from companion.media.errors import MediaError
from companion.media.formats.cocos import write_cocos_pack
from companion.media.formats.common import PIVOTS, RGBA, Animation
from companion.media.formats.gif import GifWriter
from companion.media.formats.godot import write_godot_pack
from companion.media.formats.pngseq import PngSequenceWriter, construct3_comment
from companion.media.formats.sheet import MAX_SHEET_SIDE, MAX_SPACING, SheetWriter, Spacing
from companion.media.formats.sheet_json import write_sheet_json
from companion.media.formats.unity import DEFAULT_UNITY_DIR, write_unity_metas, write_unity_package
from companion.media.formats.unreal import write_unreal_pack
from companion.media.formats.video import ClipWriter, prores_writer, webm_alpha_writer
from companion.media.frames import FrameShaper
from companion.media.pipeline import ThreadedSink
from companion.media.probe import VideoInfo, probe
from companion.media.sampling import SamplePlan, plan_samples

FORMATS: tuple[str, ...] = (
    "clip_video",
    "webm_alpha",
    "prores_4444",
    "gif",
    "frames_zip",
    "spritesheet",
    "spritesheet_json",
    "unity_meta",
    "unity_pack",
    "godot_pack",
    "unreal_paper2d_pack",
    "cocos_creator_pack",
    "construct3_pack",
)
SHEET_FORMATS = frozenset(
    {
        "spritesheet",
        "spritesheet_json",
        "unity_meta",
        "unity_pack",
        "godot_pack",
        "unreal_paper2d_pack",
        "cocos_creator_pack",
    }
)
MIME_TYPES: dict[str, str] = {
    "clip_video": "video/mp4",
    "webm_alpha": "video/webm",
    "prores_4444": "video/quicktime",
    "gif": "image/gif",
    "frames_zip": "application/zip",
    "spritesheet": "image/png",
    "spritesheet_json": "application/json",
    "unity_meta": "text/yaml",
    "unity_pack": "application/gzip",
    "godot_pack": "application/zip",
    "unreal_paper2d_pack": "application/zip",
    "cocos_creator_pack": "application/zip",
    "construct3_pack": "application/zip",
}
# File name endings per format, shared by local exports and downloaded outputs.
FILE_SUFFIX: dict[str, str] = {
    "clip_video": ".mp4",
    "webm_alpha": ".webm",
    "prores_4444": ".mov",
    "gif": ".gif",
    "frames_zip": "_frames.zip",
    "spritesheet": ".png",
    "spritesheet_json": ".json",
    "unity_meta": ".png.meta",
    "unity_pack": ".unitypackage",
    "godot_pack": "_godot.zip",
    "unreal_paper2d_pack": "_paper2d.zip",
    "cocos_creator_pack": "_cocos.zip",
    "construct3_pack": "_construct3.zip",
    "video_preview": "_preview.png",
}
MAX_NAME_CHARS = 64  # every engine's editor shows it whole; far under path limits
MAX_NAME_BYTES = 160  # UTF-8: with the longest suffix, well under 255-byte file names
# Refused by Windows (and so by a project shared with it), or break the text formats
# the packs hold a name in (Godot's quoted paths, Unity's YAML, JSON keys).
REFUSED = frozenset('<>:"/\\|?*#%[]{}')
RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL"} | {f"{d}{n}" for d in ("COM", "LPT") for n in range(1, 10)}
)
ENDS = "_-. "


def _kept(char: str) -> bool:
    category = unicodedata.category(char)
    if char in REFUSED or (category[0] == "C" and category != "Cf") or category in ("Zl", "Zp"):
        return False
    return not (category == "Cf" and char not in "\u200c\u200d")  # joiners of emoji


def clean_name(text: str) -> str:
    """A name that every file system and engine takes, as close to `text` as that
    allows: NFC, letters and digits of any script and symbols (emoji) kept, only what a
    file system or engine refuses replaced by '_' (separators, control characters,
    Windows' reserved characters and device names, trailing dots and spaces), cut to
    MAX_NAME_CHARS characters and MAX_NAME_BYTES bytes."""
    name = "".join(c if _kept(c) else "_" for c in unicodedata.normalize("NFC", text))
    name = re.sub(r"_{2,}", "_", name).strip(ENDS)
    while name and not (name[0].isalnum() or unicodedata.category(name[0]) == "So"):
        name = name[1:].lstrip(ENDS)  # no leading punctuation: YAML reads it as syntax
    name = name[:MAX_NAME_CHARS]
    while len(name.encode()) > MAX_NAME_BYTES:
        name = name[:-1]
    name = unicodedata.normalize("NFC", name).rstrip(ENDS) or "animation"
    first, dot, rest = name.partition(".")
    if first.upper() in RESERVED:  # Windows: CON and CON.anything are the device
        name = f"{first}_{dot}{rest}"
    return name


def is_clean_name(text: str) -> bool:
    return bool(text) and clean_name(text) == text


def safe_name(stem: str) -> str:
    """A name that is_clean_name accepts, made from a file's stem."""
    return clean_name(stem)


@dataclass(frozen=True)
class ExportSpec:
    formats: tuple[str, ...]
    frame_count: int | None = 24
    fps: float | None = None
    width: int = 512
    height: int = 512
    start: float = 0.0
    duration: float | None = None
    key_color: tuple[int, int, int] | None = None
    pivot: str = "bottom_center"
    pixels_per_unit: float = 100.0
    pixel_art: bool = False
    name: str = "animation"
    godot_res_dir: str | None = None
    unity_dir: str = DEFAULT_UNITY_DIR
    # Gaps laid out by the companion itself; the service's options carry none.
    padding: int = 0
    extrude: int = 0
    max_sheet_side: int = MAX_SHEET_SIDE  # smaller for devices with small texture limits


@dataclass(frozen=True)
class ExportOutput:
    format: str
    path: Path

    @property
    def mime_type(self) -> str:
        return MIME_TYPES[self.format]


@dataclass
class ExportResult:
    outputs: list[ExportOutput]
    plan: SamplePlan
    source: VideoInfo
    warnings: list[str] = field(default_factory=list)

    def paths(self, fmt: str) -> list[Path]:
        return [o.path for o in self.outputs if o.format == fmt]


class FrameSink(Protocol):
    def add(self, index: int, frame: RGBA) -> None: ...


Progress = Callable[[float], None]


def check_spec(spec: ExportSpec) -> None:
    unknown = [f for f in spec.formats if f not in FORMATS]
    if unknown:
        raise MediaError(f"unknown format {unknown[0]!r}; choose from {', '.join(FORMATS)}")
    if not spec.formats:
        raise MediaError("no output format given")
    if not is_clean_name(spec.name):
        raise MediaError(
            f"name {spec.name!r} holds characters a file system or engine refuses; "
            f"use {clean_name(spec.name)!r}"
        )
    if spec.pivot not in PIVOTS:
        raise MediaError(f"unknown pivot {spec.pivot!r}; choose from {', '.join(PIVOTS)}")
    if spec.width < 1 or spec.height < 1:
        raise MediaError("output width and height must be positive")
    for field_name, value in (("padding", spec.padding), ("extrude", spec.extrude)):
        if not 0 <= value <= MAX_SPACING:
            raise MediaError(f"{field_name} must be 0 to {MAX_SPACING} pixels, not {value}")
    slot = max(spec.width, spec.height) + 2 * spec.extrude + 2 * spec.padding
    if not slot <= spec.max_sheet_side <= MAX_SHEET_SIDE:
        raise MediaError(
            f"max sheet side must be {slot} to {MAX_SHEET_SIDE} pixels (one frame with its "
            f"padding and extrusion must fit), not {spec.max_sheet_side}"
        )


def export_video(
    source: Path,
    out_dir: Path,
    spec: ExportSpec,
    progress: Progress | None = None,
    before_move: Callable[[list[Path]], None] | None = None,
) -> ExportResult:
    """Render into a staging folder beside out_dir, then move every file in. before_move
    sees every final path first (sheet pages included) and may raise to move none."""
    check_spec(spec)
    out_dir = out_dir.resolve()
    info = probe(source)
    plan = plan_samples(
        info.duration,
        start=spec.start,
        duration=spec.duration,
        frame_count=spec.frame_count,
        fps=spec.fps,
    )
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.partial-", dir=out_dir.parent))
    try:
        outputs, warnings = _render(source, staging, spec, info, plan, progress)
        if before_move is not None:
            before_move([out_dir / output.path.name for output in outputs])
        out_dir.mkdir(parents=True, exist_ok=True)
        final = []
        for output in outputs:
            target = out_dir / output.path.name
            output.path.replace(target)
            final.append(ExportOutput(output.format, target))
        return ExportResult(final, plan, info, warnings)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _render(
    source: Path,
    folder: Path,
    spec: ExportSpec,
    info: VideoInfo,
    plan: SamplePlan,
    progress: Progress | None,
) -> tuple[list[ExportOutput], list[str]]:
    wanted = set(spec.formats)
    name, w, h = spec.name, spec.width, spec.height
    warnings: list[str] = []
    keyer = ChromaKeyer(spec.key_color) if spec.key_color is not None else None
    shaper = FrameShaper(
        info.width,
        info.height,
        w,
        h,
        keyer=keyer,
        pixel_art=spec.pixel_art,
        source_alpha=info.has_alpha,
    )

    # Every writer runs on its own thread and closes there, so encoders finish side by
    # side; the sheet's thread also writes the packs built from its pages.
    sinks: list[Writer] = []

    def sink(name: str, writer: FrameSink, close: Callable[[], list[ExportOutput]]) -> None:
        sinks.append(Writer(name, _adder(writer), close=close))

    if "webm_alpha" in wanted:
        webm = webm_alpha_writer(folder / f"{name}.webm", w, h, plan.fps, plan.durations)
        sink("webm", webm, lambda: [ExportOutput("webm_alpha", webm.close())])
    if "prores_4444" in wanted:
        prores = prores_writer(folder / f"{name}.mov", w, h, plan.fps, plan.durations)
        sink("prores", prores, lambda: [ExportOutput("prores_4444", prores.close())])
    if "gif" in wanted:
        gif = GifWriter(folder / f"{name}.gif", w, h, plan.durations, spec.pixel_art)
        if gif.clamped:
            warnings.append("gif: frames shorter than 20 ms play at 20 ms; the GIF runs slower")
        sink("gif", gif, lambda: [ExportOutput("gif", gif.close())])
    sequences = [f for f in ("frames_zip", "construct3_pack") if f in wanted]
    if sequences:
        comment = construct3_comment(plan.fps, plan.durations)
        sequence = PngSequenceWriter(
            name,
            plan.count,
            [folder / f"{name}{FILE_SUFFIX[f]}" for f in sequences],
            comments=[comment if f == "construct3_pack" else b"" for f in sequences],
        )
        sink(
            "frames",
            sequence,
            lambda: [ExportOutput(f, p) for f, p in zip(sequences, sequence.close(), strict=True)],
        )
    if wanted & SHEET_FORMATS:
        sheet = SheetWriter(
            folder,
            name,
            plan.durations,
            w,
            h,
            Spacing(spec.padding, spec.extrude),
            spec.max_sheet_side,
        )

        def close_sheet() -> list[ExportOutput]:
            animation = Animation(
                name,
                plan.fps,
                w,
                h,
                plan.durations,
                spec.pivot,
                spec.pixels_per_unit,
                spec.pixel_art,
                tuple(sheet.close()),
            )
            return _sheet_formats(animation, folder, wanted, spec)

        sink("sheet", sheet, close_sheet)
    clip: ThreadedSink[SourceFrame, list[ExportOutput]] | None = None
    if "clip_video" in wanted:
        clip_writer = ClipWriter(
            folder / f"{name}.mp4",
            info.width,
            info.height,
            w,
            h,
            plan.start,
            info.fps,
            spec.pixel_art,
        )
        clip = ThreadedSink(
            "clip",
            clip_writer.add,
            close=lambda: [ExportOutput("clip_video", clip_writer.close())],
        )

    outputs = _decode_into(source, plan, shaper, sinks, clip, progress)
    order = {f: i for i, f in enumerate(FORMATS)}
    outputs.sort(key=lambda o: order[o.format])
    return outputs, warnings


Writer = ThreadedSink[tuple[int, RGBA], list[ExportOutput]]
# Threads keying and letterboxing frames while the main thread decodes and scales. Two
# match the cores; more in flight than that only holds more frames.
SHAPERS = 2


def _decode_into(
    source: Path,
    plan: SamplePlan,
    shaper: FrameShaper,
    sinks: list[Writer],
    clip: ThreadedSink[SourceFrame, list[ExportOutput]] | None,
    progress: Progress | None,
) -> list[ExportOutput]:
    failure: BaseException | None = None
    try:
        with ThreadPoolExecutor(SHAPERS, thread_name_prefix="shape") as pool:
            _stream_frames(source, plan, shaper, pool, sinks, clip, progress)
    except BaseException as exc:
        failure = exc
    # Always stop the writer threads; the first error (decoder's or a writer's) wins.
    everyone: list[Writer | ThreadedSink[SourceFrame, list[ExportOutput]]] = [*sinks]
    if clip is not None:
        everyone.append(clip)
    for writer in everyone:  # all told first, so they close at the same time
        writer.finish()
    outputs: list[ExportOutput] = []
    for writer in everyone:
        try:
            writer.join()
            if failure is None:
                outputs += writer.result()
        except BaseException as exc:
            failure = failure or exc
    if failure is not None:
        raise failure
    return outputs


def _adder(writer: FrameSink) -> Callable[[tuple[int, RGBA]], None]:
    return lambda item: writer.add(*item)


def _stream_frames(
    source: Path,
    plan: SamplePlan,
    shaper: FrameShaper,
    pool: ThreadPoolExecutor,
    sinks: list[Writer],
    clip: ThreadedSink[SourceFrame, list[ExportOutput]] | None,
    progress: Progress | None,
) -> None:
    picker = SamplePicker(plan.times)
    shaped_serial = -1
    shaped: Future[RGBA] | None = None
    # Shaped frames in output order, handed on when the oldest is ready; at most
    # SHAPERS + 1 are in flight, so memory does not grow with the frame count.
    pending: deque[tuple[int, Future[RGBA]]] = deque()

    def hand_on(limit: int) -> None:
        while len(pending) > limit:
            index, future = pending.popleft()
            frame = future.result()
            for sink in sinks:
                sink.put((index, frame))
            if progress is not None:
                progress((index + 1) / plan.count)

    def deliver(matches: list[tuple[int, SourceFrame]]) -> None:
        nonlocal shaped_serial, shaped
        for index, chosen in matches:
            if shaped is None or chosen.serial != shaped_serial:
                # A frame shown at several instants is shaped once. Scaling stays on
                # this thread (one scaler); keying and letterboxing go to the pool.
                shaped = pool.submit(shaper.finish, shaper.scale(chosen.frame))
                shaped_serial = chosen.serial
            pending.append((index, shaped))
            hand_on(SHAPERS)

    for current in iter_source_frames(source, plan.start, plan.end):
        if clip is not None:
            clip.put(current)
        deliver(picker.push(current))
        if picker.done and clip is None:
            break
    deliver(picker.finish())
    hand_on(0)


def _sheet_formats(
    animation: Animation, folder: Path, wanted: set[str], spec: ExportSpec
) -> list[ExportOutput]:
    outputs: list[ExportOutput] = []
    if "spritesheet_json" in wanted:
        outputs += [
            ExportOutput("spritesheet_json", p) for p in write_sheet_json(animation, folder)
        ]
    if "unity_meta" in wanted:
        outputs += [
            ExportOutput("unity_meta", p)
            for p in write_unity_metas(animation, folder, spec.unity_dir)
        ]
    if "unity_pack" in wanted:
        outputs.append(
            ExportOutput("unity_pack", write_unity_package(animation, folder, spec.unity_dir))
        )
    if "godot_pack" in wanted:
        outputs.append(
            ExportOutput("godot_pack", write_godot_pack(animation, folder, spec.godot_res_dir))
        )
    if "unreal_paper2d_pack" in wanted:
        outputs.append(ExportOutput("unreal_paper2d_pack", write_unreal_pack(animation, folder)))
    if "cocos_creator_pack" in wanted:
        outputs.append(ExportOutput("cocos_creator_pack", write_cocos_pack(animation, folder)))
    pages = [page.path for page in animation.pages]
    if "spritesheet" in wanted:
        outputs += [ExportOutput("spritesheet", p) for p in pages]
    else:
        for page in pages:  # built only to feed the packs
            page.unlink()
    return outputs
