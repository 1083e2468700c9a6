"""The daemon against a hostile service: cases tried, refused and lost, and /health
latency while they run.

A sandbox and `companion serve` run as their own processes, the hostile service in
front of the sandbox (tests/support/hostile_service.py) in this one. Every case of tests/support/hostile_cases.py (crafted formats, packs with
scripts and assemblies, links, zip bombs, a 768 MiB pax header and GNU long name, user
files in the way) is submitted at once, for Godot, Unity and plain projects. A case is
refused when its job ends failed with a reason, and lost when anything landed outside
its target, a script, assembly or project file was installed, or a user file changed.
/health is polled every 50 ms throughout; the baseline is the same poll of the same
daemon while it is idle, in the same run. Goal: under 0.2 s at worst.

    python bench/hostile_bench.py [--meta-mib 768]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import daemon_process, sandbox_process, status_mb
from tests.conftest import TEST_KEY
from tests.support.hostile_cases import (
    Daemon,
    HealthWatch,
    cases,
    judge,
    prepare,
    snapshot,
    submit,
    wait_all,
)
from tests.support.hostile_service import HostileService


def figures(latencies: list[float]) -> tuple[float, float, float]:
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return statistics.median(ordered), p95, ordered[-1]


def _peak_rss_mib(pid: int) -> str:
    """The daemon's high-water resident memory (Linux), or "unknown"."""
    peak = status_mb(pid, "VmHWM")
    return "unknown" if math.isnan(peak) else f"{peak:.0f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--meta-mib", type=int, default=768, help="size of the metadata bombs")
    parser.add_argument("--idle-seconds", type=float, default=3.0)
    args = parser.parse_args()
    started = time.perf_counter()
    all_cases = cases(meta_bytes=args.meta_mib * 2**20)
    print(f"built {len(all_cases)} hostile cases in {time.perf_counter() - started:.1f} s")
    with (
        tempfile.TemporaryDirectory() as folder,
        sandbox_process(
            "--api-key",
            TEST_KEY,
            "--task-seconds",
            "0.3",
            "--limits",
            "8,100,1000,100000",
            "--credits",
            "1000000",
        ) as base,
    ):
        root = Path(folder)
        hostile = HostileService(base).start()
        home = root / "home"
        env = {
            **os.environ,
            "COMPANION_HOME": str(home),
            "COMPANION_BASE_URL": hostile.base_url,
            "COMPANION_API_KEY": TEST_KEY,
        }
        server, info = daemon_process(home, env, root / "daemon.log")
        try:
            daemon = Daemon(f"http://127.0.0.1:{info['port']}", info["token"])
            with HealthWatch(daemon) as idle:
                time.sleep(args.idle_seconds)
            projects = {case.name: prepare(case, root / "projects") for case in all_cases}
            before = snapshot(root / "projects")
            started = time.perf_counter()
            with HealthWatch(daemon) as busy:
                jobs = {c.name: submit(daemon, hostile, c, projects[c.name]) for c in all_cases}
                final = wait_all(daemon, list(jobs.values()), timeout=600)
            took = time.perf_counter() - started
            after = snapshot(root / "projects")
            peak = _peak_rss_mib(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
            hostile.stop()
    outcomes = [
        judge(c, projects[c.name], final.get(jobs[c.name]), before, after) for c in all_cases
    ]
    print(
        f"\n{'case':<22} {'engine':<6} {'state':<7} {'outside':>7} {'planted':>7} "
        f"{'changed':>7}  reason"
    )
    for o in outcomes:
        print(
            f"{o.case.name:<22} {o.case.engine:<6} {o.state:<7} {len(o.outside):>7} "
            f"{len(o.planted):>7} {len(o.overwritten):>7}  {o.error[:70]}"
        )
    tried = len(outcomes)
    refused = sum(o.refused for o in outcomes)
    lost = sum(o.lost for o in outcomes)
    print("\n| cases tried | refused (failed, with reason) | lost |\n|---|---|---|")
    print(f"| {tried} | {refused} | {lost} |")
    print(f"\nall cases finished in {took:.1f} s; the daemon's peak resident memory {peak}")
    print(f"\n/health latency      {'median':>8} {'p95':>8} {'max':>8} {'samples':>8}")
    base = figures(idle.latencies)
    load = figures(busy.latencies)
    print(
        f"baseline (idle)      {base[0]:8.4f} {base[1]:8.4f} {base[2]:8.4f} "
        f"{len(idle.latencies):8d}"
    )
    print(
        f"hostile cases        {load[0]:8.4f} {load[1]:8.4f} {load[2]:8.4f} "
        f"{len(busy.latencies):8d}"
    )
    print(
        f"ratio (hostile/idle) {load[0] / base[0]:8.1f} {load[1] / base[1]:8.1f} "
        f"{load[2] / base[2]:8.1f}"
    )
    print(
        f"failed /health calls: {idle.failures + busy.failures}; "
        f"goal max < 0.2 s: {'met' if load[2] < 0.2 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
