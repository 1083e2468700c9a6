"""The export's decode with and without the sampled instants, in the same run.

Given the instants an export samples, the decoder skips every frame that is neither shown
at one of them nor referred to by another frame (media/decode.py). This decodes the
six-format job's selection (5 s of 1024x1024 H.264 at 24 fps, 24 frames kept) both ways,
in turn so both meet the same load, on the decoder's frame threads as that export does,
and prints the frames each decode handed out, the best wall and CPU seconds, and their
ratios (skipping / whole; below 1.0 is faster).

    python bench/decode_bench.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from export_bench import DURATION, FRAMES, make_source  # noqa: E402

from companion.media.source.decode import iter_source_frames  # noqa: E402
from companion.media.source.sampling import plan_samples  # noqa: E402


def decode(source: Path, instants: tuple[float, ...] | None) -> tuple[int, float, float]:
    """(frames handed out, wall seconds, CPU seconds of every thread)."""
    start, cpu = time.perf_counter(), time.process_time()
    count = sum(1 for _ in iter_source_frames(source, 0.0, DURATION, shown_at=instants))
    return count, time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = make_source(Path(tmp) / "short.mp4", DURATION)
        plan = plan_samples(DURATION, start=0.0, duration=None, frame_count=FRAMES, fps=None)
        figures: dict[str, list[tuple[int, float, float]]] = {"whole": [], "skipping": []}
        decode(source, None)  # the first decode of a process loads the codec
        for _ in range(args.repeat):
            figures["whole"].append(decode(source, None))
            figures["skipping"].append(decode(source, plan.times))
    best = {
        name: (runs[0][0], min(r[1] for r in runs), min(r[2] for r in runs))
        for name, runs in figures.items()
    }
    print(f"decoding {DURATION:g} s of 1024x1024 H.264 for {FRAMES} sampled frames:")
    for name, (count, wall, cpu) in best.items():
        print(f"  {name:8s} {count} frames out, best {wall:.3f} s, CPU {cpu:.3f} s")
    (_, wall, cpu), (_, skip_wall, skip_cpu) = best["whole"], best["skipping"]
    print(f"  ratio skipping/whole: wall {skip_wall / wall:.2f}, CPU {skip_cpu / cpu:.2f}")


if __name__ == "__main__":
    main()
