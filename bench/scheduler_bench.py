"""Scheduler throughput at the registered tier's limits.

50 jobs through the job engine against a sandbox at the registered limits (1 running,
3 queued, 3 creates and 60 other requests per window) with short tasks. To finish in
minutes rather than a quarter of an hour, the rate window is compressed for both sides
(sandbox and client pacer) from 60 s to --window seconds; the bound the limits allow is
3 jobs per window. Prints completed jobs per window as a fraction of that bound
(target at least 0.9) and the number of 429 answers (target 0).

    python bench/scheduler_bench.py [--jobs 50] [--window 6]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.api.client import Client  # noqa: E402
from companion.api.pacing import Pacer  # noqa: E402
from companion.jobs.engine import Engine  # noqa: E402
from companion.media.demo_art import draw_character  # noqa: E402
from companion.sandbox import SandboxConfig, SandboxThread  # noqa: E402
from companion.store import Store  # noqa: E402

KEY = "sk-bench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=50)
    parser.add_argument("--window", type=float, default=6.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        image = work / "hero.png"
        draw_character(64).save(image)
        config = SandboxConfig(
            api_keys=[KEY],
            tier="registered",
            task_seconds=0.2,
            journal=True,
            rate_window=args.window,
            credits=10**6,
        )
        with SandboxThread(config) as sandbox:
            store = Store(work / "companion.db")
            request = {
                "image": str(image),
                "prompt": "idle",
                "video": {"duration_seconds": 1, "resolution": "360p"},
                "export": {
                    "frame_count": 4,
                    "output_width": 64,
                    "output_height": 64,
                    "output_formats": ["spritesheet", "spritesheet_json"],
                },
            }

            async def run() -> float:
                pacer = Pacer(window=args.window)
                async with Client(sandbox.base_url, KEY, pacer=pacer) as client:
                    engine = Engine(store, client, sandbox.base_url)
                    for i in range(args.jobs):
                        engine.submit(request, name=f"job{i}", target_dir=work / f"out{i}")
                    started = time.perf_counter()
                    jobs = await engine.drain()
                    elapsed = time.perf_counter() - started
                    assert all(j.state == "done" for j in jobs), [j.state for j in jobs]
                    return elapsed

            elapsed = asyncio.run(run())
            entries = sandbox.service.journal.entries
    rate = args.jobs / elapsed * args.window
    bound = 3.0
    refused = sum(1 for e in entries if e.status == 429)
    print(
        f"{args.jobs} jobs at the registered limits, rate window compressed to "
        f"{args.window:g} s (the service's is 60 s)"
    )
    print(f"  completed {rate:.2f} jobs per window; the limits allow {bound:.0f}")
    print(f"  fraction of the bound: {rate / bound:.2f} (target >= 0.9)")
    print(
        f"  429 answers: {refused} (target 0); API requests: "
        f"{sum(1 for e in entries if e.origin == 'api')}"
    )


if __name__ == "__main__":
    main()
