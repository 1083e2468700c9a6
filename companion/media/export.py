"""Export a video into any set of the thirteen formats in one decode.

The source is decoded once; each frame shown at a sampled instant is shaped once (fit,
key, letterbox) and handed to every frame writer; sheet-based formats are then written
from the finished pages without touching pixels again. Everything is written into a
staging folder beside the destination and moved in only when all of it succeeded."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from companion.media.catalog import FILE_SUFFIX, FORMATS, SHEET_FORMATS
from companion.media.fanout import Writer, adder, decode_into
from companion.media.formats.cocos import write_cocos_pack
from companion.media.formats.common import Animation
from companion.media.formats.gif import GifWriter
from companion.media.formats.godot import write_godot_pack
from companion.media.formats.pngseq import PngSequenceWriter, construct3_comment
from companion.media.formats.sheet import SheetWriter, Spacing
from companion.media.formats.sheet_json import write_sheet_json
from companion.media.formats.trimmed_sheet import TrimmedSheetWriter
from companion.media.formats.unity import write_unity_metas, write_unity_package
from companion.media.formats.unreal import write_unreal_pack
from companion.media.formats.video import ClipWriter, prores_writer
from companion.media.formats.webm_alpha import WebmAlphaWriter
from companion.media.frames import FrameShaper
from companion.media.keying.chroma import ChromaKeyer
from companion.media.motion.loop import SeamMeter, choose_loop
from companion.media.motion.loop_scan import LoopScan
from companion.media.motion.register import Registration
from companion.media.pipeline import ThreadedSink
from companion.media.source.decode import SourceFrame
from companion.media.source.sampling import SamplePlan, plan_samples, selection_bounds
from companion.media.source.video_info import VideoInfo, probe
from companion.media.spec import (
    ExportOutput,
    ExportResult,
    ExportSpec,
    FrameSink,
    Progress,
    check_spec,
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
    plan = _plan(spec, info, spec.start, spec.duration)  # refuses a bad selection first
    shaper = _shaper(spec, info)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.partial-", dir=out_dir.parent))
    try:
        if spec.loop:
            plan = _loop_plan(source, spec, info)
        meter = SeamMeter() if spec.loop else None
        outputs, warnings = _render(source, staging, spec, info, plan, progress, shaper, meter)
        if before_move is not None:
            before_move([out_dir / output.path.name for output in outputs])
        out_dir.mkdir(parents=True, exist_ok=True)
        final = []
        for output in outputs:
            target = out_dir / output.path.name
            output.path.replace(target)
            final.append(ExportOutput(output.format, target))
        seam = None if meter is None else meter.seam()
        return ExportResult(final, plan, info, warnings, seam)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _shaper(spec: ExportSpec, info: VideoInfo) -> FrameShaper:
    keyer = ChromaKeyer(spec.key_color) if spec.key_color is not None else None
    pixel = spec.pixel if spec.pixel_art else None
    return FrameShaper(
        info.width,
        info.height,
        spec.width,
        spec.height,
        keyer=keyer,
        pixel_art=spec.pixel_art,
        source_alpha=info.has_alpha,
        # With the art's facts, frames are registered at the clip's size (smoothly),
        # and only then put on the art's grid.
        register=Registration(spec.pixel_art and pixel is None).apply if spec.in_place else None,
        pixel=pixel,
    )


def _plan(spec: ExportSpec, info: VideoInfo, start: float, duration: float | None) -> SamplePlan:
    return plan_samples(
        info.duration,
        start=start,
        duration=duration,
        frame_count=spec.frame_count,
        fps=spec.fps,
    )


def _loop_plan(source: Path, spec: ExportSpec, info: VideoInfo) -> SamplePlan:
    """The instants of the seamless span of the selection, chosen from a thumbnail of
    each of its frames."""
    start, end = selection_bounds(info.duration, spec.start, spec.duration)
    scan = LoopScan(source, start, end)
    choice = choose_loop(
        scan.times, scan.thumbs, lambda a, b: _plan(spec, info, a, b - a), scan.shown
    )
    return _plan(spec, info, choice.start, choice.end - choice.start)


def _render(
    source: Path,
    folder: Path,
    spec: ExportSpec,
    info: VideoInfo,
    plan: SamplePlan,
    progress: Progress | None,
    shaper: FrameShaper,
    meter: SeamMeter | None,
) -> tuple[list[ExportOutput], list[str]]:
    wanted = set(spec.formats)
    name, w, h = spec.name, spec.width, spec.height
    warnings: list[str] = []

    # Every writer runs on its own thread and closes there, so encoders finish side by
    # side; the sheet's thread also writes the packs built from its pages.
    sinks: list[Writer] = []

    def sink(name: str, writer: FrameSink, close: Callable[[], list[ExportOutput]]) -> None:
        sinks.append(Writer(name, adder(writer), close=close))

    if meter is not None:
        sink("seam", meter, lambda: [])
    if "webm_alpha" in wanted:
        webm = WebmAlphaWriter(folder / f"{name}.webm", w, h, plan.fps, plan.durations)
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
        sheet = (TrimmedSheetWriter if spec.trim else SheetWriter)(
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

    outputs = decode_into(source, plan, shaper, sinks, clip, progress, info.fps)
    order = {f: i for i, f in enumerate(FORMATS)}
    outputs.sort(key=lambda o: order[o.format])
    return outputs, warnings


def _sheet_formats(
    animation: Animation, folder: Path, wanted: set[str], spec: ExportSpec
) -> list[ExportOutput]:
    """The formats built from the finished pages. They read the pages and write files
    of their own, so they are written side by side (zlib and file writes release the
    GIL): the export ends with the slowest of them, not their sum."""
    writers = [(f, write) for f, write in _PAGE_WRITERS.items() if f in wanted]
    outputs: list[ExportOutput] = []
    if writers:
        with ThreadPoolExecutor(len(writers), thread_name_prefix="pack") as pool:
            jobs = [(f, pool.submit(write, animation, folder, spec)) for f, write in writers]
            for f, job in jobs:
                written = job.result()
                paths = written if isinstance(written, list) else [written]
                outputs += [ExportOutput(f, p) for p in paths]
    pages = [page.path for page in animation.pages]
    if "spritesheet" in wanted:
        outputs += [ExportOutput("spritesheet", p) for p in pages]
    else:
        for page in pages:  # built only to feed the packs
            page.unlink()
    return outputs


# The formats written from the finished pages, in the order their outputs are listed.
_PAGE_WRITERS: dict[str, Callable[[Animation, Path, ExportSpec], Path | list[Path]]] = {
    "spritesheet_json": lambda a, folder, spec: write_sheet_json(a, folder),
    "unity_meta": lambda a, folder, spec: write_unity_metas(a, folder, spec.unity_dir),
    "unity_pack": lambda a, folder, spec: write_unity_package(a, folder, spec.unity_dir),
    "godot_pack": lambda a, folder, spec: write_godot_pack(a, folder, spec.godot_res_dir),
    "unreal_paper2d_pack": lambda a, folder, spec: write_unreal_pack(a, folder),
    "cocos_creator_pack": lambda a, folder, spec: write_cocos_pack(a, folder),
}
