"""Export speed against FFmpeg command-line jobs doing the same work, in the same run.

Sources: 5 s and 10 s, 1024x1024, 24 fps H.264 videos of a character on a green key.
Jobs, each done by companion in one `export_video` call (one decode):
- six formats: 24 frames of 512x512 from the 5 s source, keyed, to spritesheet +
  spritesheet_json, gif, frames_zip, webm_alpha, prores_4444 and godot_pack;
- thirteen formats: every format, 240 frames of 512x512 from the 10 s source.
The baseline is one FFmpeg command per format (the binary imageio-ffmpeg ships), each
with the same sampling, scaling, chroma key and encoder settings, run one after another
as a script would (the thirteen-format baseline adds the H.264 clip and a second zip of
the frames; the engine packs have no FFmpeg counterpart and are companion's extra work).
Prints wall times, their ratio (companion / FFmpeg; below 1.0 is faster), and
companion's peak resident memory for the six-format job at 512x512 and at 1024x1024
frames (their ratio shows whether memory grows with frame size), the same without
webm_alpha, and the VP9-with-alpha writer alone; then the six-format job at 24 and at 240
frames of 512x512 from the 10 s source (memory must not grow with the frame count). Last,
every goal of the issue with its median over the runs, its goal and whether it is met,
and what the local finishing adds to the six-format job: in place, loop auto and trim
each alone and all three, and the loop's first pass alone (the scan that decodes the
whole selection for thumbnails); `--finishing-only` measures just that.

    python bench/export_bench.py [--repeat N]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
from PIL import Image

try:
    import imageio_ffmpeg
except ImportError:
    sys.exit("the FFmpeg baseline needs the bench extra: .venv/bin/pip install -e '.[dev,bench]'")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.media.demo_art import draw_character  # noqa: E402
from companion.media.synth import SynthSpec, synthesize  # noqa: E402

FORMATS = "spritesheet,spritesheet_json,gif,frames_zip,webm_alpha,prores_4444,godot_pack"
NO_WEBM = FORMATS.replace(",webm_alpha", "")
ALL_FORMATS = (
    "clip_video,webm_alpha,prores_4444,gif,frames_zip,spritesheet,spritesheet_json,unity_meta,"
    "unity_pack,godot_pack,unreal_paper2d_pack,cocos_creator_pack,construct3_pack"
)
FRAMES, SIDE, DURATION = 24, 512, 5.0
BIG_FRAMES, BIG_DURATION = 240, 10.0
KEY = "0x00ff00"
# The goals (issue 31): time against the FFmpeg CLI, memory 1024^2 against 512^2 and 240
# frames against 24 (six formats).
GOALS = {
    "6 formats / FFmpeg CLI": 0.25,
    "13 formats, 240 frames / FFmpeg CLI": 0.25,
    "peak memory 1024^2 / 512^2": 2.0,
    "peak memory 240 / 24 frames": 1.15,
    "6 formats with in place, loop auto, trim / without": 1.15,
}

# The child's own peak resident memory (see bench/_common.status_mb).
HIGH_WATER = """
from bench._common import status_mb
def high_water_mb():
    return status_mb("self", "VmHWM")
"""

OURS = (
    HIGH_WATER
    + """
import json, sys, time
from pathlib import Path
from companion.media import ExportSpec, export_video
source, out = Path(sys.argv[1]), Path(sys.argv[2])
spec = ExportSpec(formats=tuple(sys.argv[3].split(",")), frame_count=int(sys.argv[4]),
                  width=int(sys.argv[5]), height=int(sys.argv[5]), key_color=(0, 255, 0),
                  name="bench")
start = time.perf_counter()
export_video(source, out, spec)
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed,
                  "peak_mb": high_water_mb()}))
"""
)

# The VP9-with-alpha writer alone, fed 24 frames: how much of the job's memory is
# libvpx's own (encoders whose buffers are sized by the frame; from 768x768 one at a time).
VP9_ALONE = (
    HIGH_WATER
    + """
import json, sys
from pathlib import Path
import numpy as np
from companion.media.formats.webm_alpha import WebmAlphaWriter
side = int(sys.argv[2])
before = high_water_mb()
writer = WebmAlphaWriter(Path(sys.argv[1]), side, side, 24.0, (1 / 24,) * 24)
frame = np.zeros((side, side, 4), dtype=np.uint8)
for index in range(24):
    frame[side // 4 : side // 2, index * side // 48 : side // 2, :] = 200
    writer.add(index, frame)
writer.close()
after = high_water_mb()
print(json.dumps({"peak_mb": after - before}))
"""
)


# The six-format job with the local finishing on (in place, loop search, trimmed sheet),
# against the same job plain, each in its own process: their ratio is what finishing adds.
FINISHED = (
    HIGH_WATER
    + """
import json, sys, time
from pathlib import Path
from companion.media import ExportSpec, export_video
source, out = Path(sys.argv[1]), Path(sys.argv[2])
spec = ExportSpec(formats=tuple(sys.argv[3].split(",")), frame_count=int(sys.argv[4]),
                  width=int(sys.argv[5]), height=int(sys.argv[5]), key_color=(0, 255, 0),
                  name="bench", **json.loads(sys.argv[6]))
start, cpu = time.perf_counter(), time.process_time()
export_video(source, out, spec)
print(json.dumps({"seconds": time.perf_counter() - start, "peak_mb": high_water_mb(),
                  "cpu": time.process_time() - cpu}))
"""
)
FINISHING = {"in_place": True, "loop": True, "trim": True}
# Each finishing step alone too, so the bench shows what each one costs.
FINISHING_RUNS: dict[str, dict[str, bool]] = {
    "plain": {},
    "in place": {"in_place": True},
    "loop auto": {"loop": True},
    "trim": {"trim": True},
    "all three": FINISHING,
}

# The loop search's first pass alone (media/loop_scan.py): every frame of the selection
# decoded once for its thumbnail, before the export can choose its first frame.
SCAN = (
    HIGH_WATER
    + """
import json, sys, time
from pathlib import Path
from companion.media.motion.loop_scan import LoopScan
start, cpu = time.perf_counter(), time.process_time()
scan = LoopScan(Path(sys.argv[1]), 0.0, float(sys.argv[2]))
print(json.dumps({"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                  "frames": len(scan.times)}))
"""
)


def _run_json(script: str, *args: str) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", script, *args], check=True, capture_output=True, text=True, cwd=ROOT
    )
    figures: dict[str, float] = json.loads(result.stdout.strip().splitlines()[-1])
    return figures


def finishing_cost(source: Path, work: Path, repeat: int) -> list[float]:
    """Prints the six-format export's best time plain, with each finishing step alone
    and with all three (--in-place --loop auto --trim), runs taken in turn so all meet
    the same load, with their ratios to plain, and the loop's scan alone; returns the
    ratio of all three to plain, run by run."""
    labels = list(FINISHING_RUNS)
    best: dict[str, list[float]] = {label: [] for label in [*labels, "scan"]}
    peak: dict[str, list[float]] = {label: [] for label in labels}
    cpu: dict[str, list[float]] = {label: [] for label in [*labels, "scan"]}
    frames = 0.0
    for i in range(repeat):
        for label, options in FINISHING_RUNS.items():
            out = work / f"finishing-{i}-{label.replace(' ', '-')}"
            figures = _run_json(
                FINISHED, str(source), str(out), FORMATS, str(FRAMES), str(SIDE),
                json.dumps(options),
            )  # fmt: skip
            best[label].append(figures["seconds"])
            peak[label].append(figures["peak_mb"])
            cpu[label].append(figures["cpu"])
            shutil.rmtree(out)
        scan = _run_json(SCAN, str(source), str(DURATION))
        best["scan"].append(scan["seconds"])
        cpu["scan"].append(scan["cpu"])
        frames = scan["frames"]
    plain, plain_cpu = min(best["plain"]), min(cpu["plain"])
    print(f"finishing on the 6-format job, {FRAMES} frames (best wall; CPU of every thread):")
    for label in labels:
        wall, used = min(best[label]), min(cpu[label])
        print(
            f"  {label:9s} best {wall:.2f} s ({runs(best[label])}), {wall / plain:.3f}x plain;"
            f" CPU {used:.2f} s, {used / plain_cpu:.3f}x; peak RSS {min(peak[label]):.0f} MB"
        )
    # CPU seconds (every thread) hardly move with other work on the machine; wall time does.
    wall, used = min(best["scan"]), min(cpu["scan"])
    print(
        f"  the loop's scan alone ({frames:.0f} frames decoded for thumbnails): best"
        f" {wall:.2f} s, {wall / plain:.3f}x the plain export; CPU {used:.2f} s,"
        f" {used / plain_cpu:.3f}x"
    )
    return _ratios(best["all three"], best["plain"])


def ffmpeg_jobs(
    ffmpeg: str, source: Path, out: Path, frames: int, duration: float, clip: bool
) -> list[list[str]]:
    rate = frames / duration
    common = f"fps={rate},scale={SIDE}:{SIDE}:flags=area,chromakey={KEY}:0.12:0.08,despill=green"
    base = [ffmpeg, "-v", "error", "-y", "-i", str(source)]
    cols = max(1, int(frames**0.5 + 0.999))
    rows = -(-frames // cols)
    (out / "frames").mkdir(parents=True, exist_ok=True)
    extra = [
        base
        + [
            "-vf",
            f"scale={SIDE}:{SIDE}:flags=area",
            "-c:v",
            "libx264",
            "-crf",
            "18",
            "-preset",
            "veryfast",
            "-movflags",
            "+faststart",
            str(out / "clip.mp4"),
        ]
    ]
    return (extra if clip else []) + [
        base + ["-vf", f"{common},tile={cols}x{rows}", "-frames:v", "1", str(out / "sheet.png")],
        base
        + [
            "-vf",
            f"{common},split[a][b];[a]palettegen=reserve_transparent=1[p];[b][p]paletteuse=alpha_threshold=128",
            "-loop",
            "0",
            str(out / "anim.gif"),
        ],
        base + ["-vf", common, str(out / "frames" / "f_%04d.png")],
        base
        + [
            "-vf",
            f"{common},format=yuva420p",
            "-c:v",
            "libvpx-vp9",
            "-crf",
            "28",
            "-b:v",
            "0",
            "-deadline",
            "realtime",
            "-cpu-used",
            "8",
            "-row-mt",
            "1",
            str(out / "anim.webm"),
        ],
        base
        + [
            "-vf",
            f"{common},format=yuva444p10le",
            "-c:v",
            "prores_ks",
            "-profile:v",
            "4444",
            # companion's ProRes settings: the finest quantiser, fixed (no rate search)
            "-q:v",
            "1",
            str(out / "anim.mov"),
        ],
    ]


def run_ffmpeg(
    ffmpeg: str, source: Path, out: Path, frames: int, duration: float, big: bool
) -> float:
    """Wall time of the jobs."""
    start = time.perf_counter()
    for job in ffmpeg_jobs(ffmpeg, source, out, frames, duration, big):
        if subprocess.run(job).returncode != 0:
            raise SystemExit(f"ffmpeg failed: {' '.join(job)}")
    # The frames still have to become a zip, as frames_zip does.
    shutil.make_archive(str(out / "frames"), "zip", out / "frames")
    if big:  # and the Construct 3 pack is a second zip of them
        shutil.make_archive(str(out / "construct3"), "zip", out / "frames")
    return time.perf_counter() - start


def run_ours(
    source: Path, out: Path, formats: str, frames: int, side: int = SIDE
) -> dict[str, float]:
    return _run_json(OURS, str(source), str(out), formats, str(frames), str(side))


def vp9_alone(out: Path, side: int) -> float:
    return _run_json(VP9_ALONE, str(out), str(side))["peak_mb"]


def make_source(path: Path, duration: float) -> Path:
    synthesize(
        draw_character(512),
        path,
        SynthSpec(
            prompt="walk cycle",
            duration=duration,
            fps=24,
            width=1024,
            height=1024,
            key_color=(0, 255, 0),
        ),
    )
    return path


def runs(times: list[float]) -> str:
    return ", ".join(f"{t:.2f}" for t in times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--finishing-only", action="store_true", help="only what finishing adds (quick)"
    )
    args = parser.parse_args()
    if args.finishing_only:
        with tempfile.TemporaryDirectory() as tmp:
            finishing_cost(make_source(Path(tmp) / "short.mp4", DURATION), Path(tmp), args.repeat)
        return
    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    print(f"load before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        short = make_source(work / "short.mp4", DURATION)
        long = make_source(work / "long.mp4", BIG_DURATION)
        jobs = {
            "6 formats": (short, FORMATS, FRAMES, DURATION, False),
            "13 formats": (long, ALL_FORMATS, BIG_FRAMES, BIG_DURATION, True),
        }
        ours: dict[str, list[float]] = {name: [] for name in jobs}
        theirs: dict[str, list[float]] = {name: [] for name in jobs}
        peaks: dict[int, list[float]] = {SIDE: [], 1024: []}
        without_webm: dict[int, list[float]] = {SIDE: [], 1024: []}
        vp9: dict[int, list[float]] = {SIDE: [], 1024: []}
        by_count: dict[int, list[float]] = {FRAMES: [], BIG_FRAMES: []}
        growth = (0, 0.0, 0.0)
        for i in range(args.repeat):
            for name, (source, formats, frames, duration, big) in jobs.items():
                result = run_ours(source, work / f"ours-{name}-{i}", formats, frames)
                ours[name].append(result["seconds"])
                if not big:
                    peaks[SIDE].append(result["peak_mb"])
                seconds = run_ffmpeg(
                    ffmpeg, source, work / f"ffmpeg-{name}-{i}", frames, duration, big
                )
                theirs[name].append(seconds)
                if big and i == 0:
                    growth = png_growth(work / f"ours-{name}-{i}")
                shutil.rmtree(work / f"ours-{name}-{i}")
                shutil.rmtree(work / f"ffmpeg-{name}-{i}")
            large = run_ours(short, work / f"ours-1024-{i}", FORMATS, FRAMES, 1024)
            peaks[1024].append(large["peak_mb"])
            shutil.rmtree(work / f"ours-1024-{i}")
            for side in (SIDE, 1024):
                rest = run_ours(short, work / f"rest-{side}-{i}", NO_WEBM, FRAMES, side)
                without_webm[side].append(rest["peak_mb"])
                shutil.rmtree(work / f"rest-{side}-{i}")
                vp9[side].append(vp9_alone(work / f"vp9-{side}-{i}.webm", side))
            for count in by_count:
                found = run_ours(long, work / f"count-{count}-{i}", FORMATS, count)
                by_count[count].append(found["peak_mb"])
                shutil.rmtree(work / f"count-{count}-{i}")
        finishing = finishing_cost(short, work, args.repeat)
    print(f"load after: {os.getloadavg()[0]:.2f}")
    for name, (_, _formats, frames, duration, _big) in jobs.items():
        ratios = [o / t for o, t in zip(ours[name], theirs[name], strict=True)]
        print(f"{name}: {frames} frames {SIDE}x{SIDE} from {duration:g} s 1024x1024, keyed")
        print(f"  companion  best {min(ours[name]):.2f} s  (runs: {runs(ours[name])})")
        print(f"  ffmpeg CLI best {min(theirs[name]):.2f} s  (runs: {runs(theirs[name])})")
        print(
            f"  ratio companion/ffmpeg: best-to-best {min(ours[name]) / min(theirs[name]):.2f}"
            f"  per run {', '.join(f'{r:.2f}' for r in ratios)}"
        )
    for label, found in (("6 formats", peaks), ("6 formats but webm_alpha", without_webm)):
        small, large_peak = min(found[SIDE]), min(found[1024])
        print(
            f"peak RSS, {label}: {small:.0f} MB at {SIDE}x{SIDE}, {large_peak:.0f} MB at "
            f"1024x1024 frames; ratio {large_peak / small:.2f}"
        )
    print(
        f"  libvpx VP9 with alpha alone (24 frames): {min(vp9[SIDE]):.0f} MB at "
        f"{SIDE}x{SIDE}, {min(vp9[1024]):.0f} MB at 1024x1024"
    )
    print(
        f"peak RSS, 6 formats from the {BIG_DURATION:g} s source at {SIDE}x{SIDE}: "
        f"{statistics.median(by_count[FRAMES]):.0f} MB at {FRAMES} frames, "
        f"{statistics.median(by_count[BIG_FRAMES]):.0f} MB at {BIG_FRAMES} (medians)"
    )
    figures = {
        "6 formats / FFmpeg CLI": _ratios(ours["6 formats"], theirs["6 formats"]),
        "13 formats, 240 frames / FFmpeg CLI": _ratios(ours["13 formats"], theirs["13 formats"]),
        "peak memory 1024^2 / 512^2": _ratios(peaks[1024], peaks[SIDE]),
        "peak memory 240 / 24 frames": _ratios(by_count[BIG_FRAMES], by_count[FRAMES]),
        "6 formats with in place, loop auto, trim / without": finishing,
    }
    print_goals(figures)
    count, worst, total = growth
    print(
        f"  PNGs of the 13-format job against Pillow at zlib level 3 (the former writers) on "
        f"the same pixels: {count} files, worst {worst:.3f}x, all together {total:.3f}x "
        f"(goal <= 1.05 each) {'met' if worst <= 1.05 else 'NOT met'}"
    )


def png_growth(folder: Path) -> tuple[int, float, float]:
    """Every PNG of an export (pages, and the frames and pages inside its zips) against
    the file the former writers made of the same pixels: Pillow at zlib level 3, whose
    bytes they wrote. (Their pixels against the reference's are the golden test's part:
    tests/support/export_golden.py.)"""
    pngs: list[bytes] = [p.read_bytes() for p in folder.glob("*.png")]
    for archive in folder.glob("*.zip"):
        with zipfile.ZipFile(archive) as opened:
            pngs += [opened.read(n) for n in opened.namelist() if n.endswith(".png")]
    worst, ours, before = 0.0, 0, 0
    for data in pngs:
        pixels = np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))
        reference = io.BytesIO()
        Image.fromarray(pixels, "RGBA").save(reference, "PNG", compress_level=3)
        worst = max(worst, len(data) / reference.tell())
        ours, before = ours + len(data), before + reference.tell()
    return len(pngs), worst, ours / before


def _ratios(top: list[float], bottom: list[float]) -> list[float]:
    """Run by run: each run's figures were measured in the same pass, so they compare."""
    return [a / b for a, b in zip(top, bottom, strict=True)]


def print_goals(figures: dict[str, list[float]]) -> None:
    print(f"goals (median of runs; load now {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores):")
    for name, ratios in figures.items():
        median, goal = statistics.median(ratios), GOALS[name]
        state = "met" if median <= goal else "NOT met"
        shown = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"  {name}: {median:.2f} (goal <= {goal}; runs {shown}) {state}")


if __name__ == "__main__":
    main()
