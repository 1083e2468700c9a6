"""Export speed against FFmpeg command-line jobs doing the same work, in the same run.

Source: a 5 s, 1024x1024, 24 fps H.264 video of a character on a green key.
Job: 24 frames of 512x512, keyed, to spritesheet + spritesheet_json, gif, frames_zip,
webm_alpha and prores_4444. companion does it in one `export_video` call (one decode);
the baseline is one FFmpeg command per format (the binary imageio-ffmpeg ships), each
with the same sampling, scaling and chroma key, run one after another as a script would.
Prints both wall times, their ratio (companion / FFmpeg; below 1.0 is faster) and the
peak resident memory of each side.

    python bench/export_bench.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import imageio_ffmpeg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.media.demo_art import draw_character  # noqa: E402
from companion.media.synth import SynthSpec, synthesize  # noqa: E402

FORMATS = "spritesheet,spritesheet_json,gif,frames_zip,webm_alpha,prores_4444"
FRAMES, SIDE, DURATION = 24, 512, 5.0
KEY = "0x00ff00"

OURS = """
import json, resource, sys, time
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
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def ffmpeg_jobs(ffmpeg: str, source: Path, out: Path) -> list[list[str]]:
    rate = FRAMES / DURATION
    common = f"fps={rate},scale={SIDE}:{SIDE}:flags=area,chromakey={KEY}:0.12:0.08,despill=green"
    base = [ffmpeg, "-v", "error", "-y", "-i", str(source)]
    cols = 5
    rows = -(-FRAMES // cols)
    (out / "frames").mkdir(parents=True, exist_ok=True)
    return [
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
            str(out / "anim.mov"),
        ],
    ]


def run_ffmpeg(ffmpeg: str, source: Path, out: Path) -> tuple[float, float]:
    """Wall time of the five jobs and the largest peak RSS among them (MB)."""
    start = time.perf_counter()
    peak = 0.0
    for job in ffmpeg_jobs(ffmpeg, source, out):
        process = subprocess.Popen(job)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            raise SystemExit(f"ffmpeg failed: {' '.join(job)}")
        peak = max(peak, usage.ru_maxrss / 1024)
    # The frames still have to become a zip, as frames_zip does.
    shutil.make_archive(str(out / "frames"), "zip", out / "frames")
    return time.perf_counter() - start, peak


def run_ours(source: Path, out: Path) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", OURS, str(source), str(out), FORMATS, str(FRAMES), str(SIDE)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = work / "source.mp4"
        synthesize(
            draw_character(512),
            source,
            SynthSpec(
                prompt="walk cycle",
                duration=DURATION,
                fps=24,
                width=1024,
                height=1024,
                key_color=(0, 255, 0),
            ),
        )
        ours_times, ffmpeg_times, ours_peak, ffmpeg_peak = [], [], 0.0, 0.0
        for i in range(args.repeat):
            result = run_ours(source, work / f"ours{i}")
            ours_times.append(result["seconds"])
            ours_peak = max(ours_peak, result["peak_mb"])
            seconds, peak = run_ffmpeg(ffmpeg, source, work / f"ffmpeg{i}")
            ffmpeg_times.append(seconds)
            ffmpeg_peak = max(ffmpeg_peak, peak)
    ours_best, ffmpeg_best = min(ours_times), min(ffmpeg_times)
    print(
        f"source: {DURATION:g} s 1024x1024 24 fps; job: {FRAMES} frames {SIDE}x{SIDE}, keyed, "
        f"{FORMATS}"
    )
    print(
        f"companion export_video  best {ours_best:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in ours_times)})"
        f"  peak RSS {ours_peak:.0f} MB"
    )
    print(
        f"ffmpeg CLI, 5 jobs      best {ffmpeg_best:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in ffmpeg_times)})"
        f"  peak RSS of any process {ffmpeg_peak:.0f} MB"
    )
    print(f"ratio companion/ffmpeg: {ours_best / ffmpeg_best:.2f}")


if __name__ == "__main__":
    main()
