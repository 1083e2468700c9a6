"""What the pixel-art pass costs an export: the same export of the same clip with the
pass and without it, in the same run.

Pictures: the tests' pixel-art character (tests/support/pixel_art.py: five colours, hard
alpha, 1-pixel eyes) at 32 and 64 px drawn at 1x, and at 128 px drawn at 4x. Each is
made into a clip as the sandbox makes one by default (480x480, 3 s, 24 fps H.264 on the
key colour it picks for the picture). Job: 24 frames at the picture's own size, keyed,
to spritesheet + spritesheet_json and gif, in one `export_video` call, three ways:
- plain: no pixel art (area scaling; the GIF writer's smooth settings);
- nearest: pixel_art without the art's facts (nearest scaling, the GIF's pixel-art
  settings), as when the picture cannot be read here;
- pixel: pixel_art with the facts read from the picture as a job reads them
  (companion.jobs.pixel_facts, carried as JSON to the export as a re-cut does): each
  frame keyed at the clip's size, then brought to the art's grid and palette.
Each run is a fresh process, as a command's export is; the ways take turns run by run,
so all meet the same load. Prints for each picture the best wall time, CPU seconds of
every thread and peak resident memory of each way, and their ratios to plain (pixel /
plain, run by run and best to best; above 1.0 is what the pass adds).

    python bench/pixel_bench.py [--repeat 7] [--side 480]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.jobs import pixel_facts  # noqa: E402
from companion.media import SynthSpec, far_key_colour, synthesize  # noqa: E402
from companion.sandbox.account.pricing import DEFAULT_VIDEO_SECONDS  # noqa: E402
from companion.sandbox.models import size_of  # noqa: E402
from companion.sandbox.tasks.runner import GENERATION_FPS  # noqa: E402
from tests.support.pixel_art import draw_pixel_character  # noqa: E402

FORMATS = "spritesheet,spritesheet_json,gif"
FRAMES = 24
# (picture side, grid): drawn at 1x, and at 4x on a 32-pixel art.
PICTURES = ((32, 1), (64, 1), (128, 4))
WAYS = ("plain", "nearest", "pixel")

# One export in its own process: wall and CPU seconds of export_video alone (imports
# and the facts' parsing are outside), and the process's own peak resident memory (see
# bench/_common.status_mb).
EXPORT = """
import json, sys, time
from pathlib import Path
from bench._common import status_mb
from companion.media import ExportSpec, PixelArt, export_video
source, out, side = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[4])
way, facts, key = sys.argv[5], json.loads(sys.argv[6]), json.loads(sys.argv[7])
spec = ExportSpec(formats=tuple(sys.argv[3].split(",")), frame_count=int(sys.argv[8]),
                  width=side, height=side, key_color=tuple(key), name="bench",
                  pixel_art=way != "plain",
                  pixel=PixelArt.of_json(facts) if way == "pixel" else None)
start, cpu = time.perf_counter(), time.process_time()
export_video(source, out, spec)
print(json.dumps({"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                  "peak_mb": status_mb("self", "VmHWM")}))
"""


def run_export(
    source: Path, out: Path, side: int, way: str, facts: dict[str, Any], key: tuple[int, ...]
) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", EXPORT, str(source), str(out), FORMATS, str(side), way,
         json.dumps(facts), json.dumps(list(key)), str(FRAMES)],
        check=True, capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    figures: dict[str, float] = json.loads(result.stdout.strip().splitlines()[-1])
    return figures


def make_clip(
    work: Path, side: int, grid: int, clip_side: int
) -> tuple[Path, dict[str, Any], tuple[int, int, int]]:
    """The picture's clip as the sandbox makes it, the art's facts as a job reads them
    from the picture's file, and the key colour the clip is on."""
    picture = draw_pixel_character(side, grid)
    image = work / f"pixel-{side}.png"
    picture.save(image)
    facts = pixel_facts(image, None)
    if facts is None:
        raise SystemExit(f"{image} was not read as pixel art")
    key = far_key_colour(picture)
    clip = work / f"pixel-{side}.mp4"
    synthesize(
        picture,
        clip,
        SynthSpec(
            prompt="idle",
            duration=DEFAULT_VIDEO_SECONDS,
            fps=GENERATION_FPS,
            width=clip_side,
            height=clip_side,
            key_color=key,
        ),
    )
    return clip, facts, key


def runs(times: list[float]) -> str:
    return ", ".join(f"{t:.3f}" for t in times)


def _ratios(top: list[float], bottom: list[float]) -> list[float]:
    """Run by run: each run's ways took turns under the same load, so they compare."""
    return [a / b for a, b in zip(top, bottom, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    default_side = size_of(None, None)[0]  # the sandbox's default clip (480p, 1:1)
    parser.add_argument("--side", type=int, default=default_side, help="the clip's side")
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f}")
    figures: dict[int, dict[str, list[dict[str, float]]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        clips = {side: make_clip(work, side, grid, args.side) for side, grid in PICTURES}
        for i in range(args.repeat):
            for side, (clip, facts, key) in clips.items():
                found = figures.setdefault(side, {way: [] for way in WAYS})
                for way in WAYS:
                    out = work / f"out-{side}-{way}-{i}"
                    found[way].append(run_export(clip, out, side, way, facts, key))
                    shutil.rmtree(out)
    print(f"load after: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    print(
        f"{FRAMES} keyed frames from a {args.side}x{args.side} {DEFAULT_VIDEO_SECONDS:g} s clip"
        f" to {FORMATS.replace(',', ', ')} (best wall; CPU of every thread):"
    )
    for side, grid in PICTURES:
        found = figures[side]
        wall = {way: [r["seconds"] for r in found[way]] for way in WAYS}
        cpu = {way: [r["cpu"] for r in found[way]] for way in WAYS}
        plain, plain_cpu = min(wall["plain"]), min(cpu["plain"])
        print(f"  {side} px picture drawn at {grid}x, {side}x{side} frames:")
        for way in WAYS:
            best, used = min(wall[way]), min(cpu[way])
            peak = min(r["peak_mb"] for r in found[way])
            print(
                f"    {way:7s} best {best:.3f} s ({runs(wall[way])}), {best / plain:.2f}x plain;"
                f" CPU {used:.3f} s, {used / plain_cpu:.2f}x; peak RSS {peak:.0f} MB"
            )
        # CPU seconds (every thread) hardly move with other work on the machine; wall does.
        for label, figures_of in (("wall", wall), ("CPU", cpu)):
            ratios = _ratios(figures_of["pixel"], figures_of["plain"])
            print(
                f"    ratio pixel/plain, {label}: median {statistics.median(ratios):.2f}"
                f" (runs {', '.join(f'{r:.2f}' for r in ratios)}),"
                f" +{min(figures_of['pixel']) - min(figures_of['plain']):.3f} s best to best"
            )


if __name__ == "__main__":
    main()
