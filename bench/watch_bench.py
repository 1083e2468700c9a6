"""Drop-to-job latency of watched folders, and how often the idle daemon wakes up.

A sandbox and `companion serve` run as their own processes. Files are dropped into a
registered inbox one at a time; latency runs from the end of the file's write to the
job's first event on the daemon's event stream. The daemon waits for a file to hold
still for its stability window (0.5 s) before taking it, so the figure that matters is
the latency beyond that window (target under 0.5 s). Baseline in the same run: a bare
watchdog observer noticing the same kind of write, the floor for any watcher.
Idle: the daemon's wake-ups per second with nothing to do, counted by the kernel (the
context switches of all its threads in /proc/PID/task/*/status) while it watches no
project (the baseline), one and twenty; its CPU share and resident memory.

    python bench/watch_bench.py [--drops 10] [--idle-seconds 10]
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import signal
import statistics
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
from _common import daemon_process, sandbox_process, status_mb  # bench/ is on sys.path
from PIL import Image
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-bench"
STABLE = 0.5


def png(seed: int) -> bytes:
    buffer = io.BytesIO()
    pixels = np.random.default_rng(seed).integers(0, 255, (48, 48, 3), dtype=np.uint8)
    Image.fromarray(pixels).save(buffer, "PNG")
    return buffer.getvalue()


def baseline_latency(folder: Path, drops: int) -> list[float]:
    seen: dict[str, float] = {}

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            seen.setdefault(Path(str(event.src_path)).name, time.perf_counter())

    observer = Observer()
    observer.schedule(Handler(), str(folder))
    observer.start()
    latencies = []
    for i in range(drops):
        path = folder / f"raw{i}.png"
        path.write_bytes(png(1000 + i))
        written = time.perf_counter()
        while path.name not in seen:
            time.sleep(0.001)
        latencies.append(max(0.0, seen[path.name] - written))
    observer.stop()
    observer.join()
    return latencies


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def switches(pid: int) -> int:
    """Context switches of all the process's threads: each is the kernel running it
    again, a wake-up, whether it slept on a timer or was woken by an event."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            text = (task / "status").read_text()
        except OSError:  # the thread ended between listing and reading
            continue
        for line in text.splitlines():
            if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                total += int(line.split()[1])
    return total


def idle(pid: int, seconds: float) -> tuple[float, float]:
    """Wake-ups per second and % of one core over `seconds` of nothing to do."""
    time.sleep(2)  # what registering started has settled
    cpu, woken = cpu_seconds(pid), switches(pid)
    time.sleep(seconds)
    return (switches(pid) - woken) / seconds, (cpu_seconds(pid) - cpu) / seconds * 100


def rss_mb(pid: int) -> float:
    return status_mb(pid, "VmRSS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drops", type=int, default=10)
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        sandbox_process(
            "--api-key", KEY, "--task-seconds", "0.2", "--limits", "4,50,1000,100000"
        ) as base,
    ):
        work = Path(tmp)
        env = {
            **os.environ,
            "COMPANION_HOME": str(work / "home"),
            "COMPANION_BASE_URL": base,
            "COMPANION_API_KEY": KEY,
        }
        daemon, info = daemon_process(work / "home", env, work / "daemon.log")
        try:
            port, token = info["port"], info["token"]
            headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

            def register(name: str) -> Path:
                project = work / name
                project.mkdir()
                connection = http.client.HTTPConnection("127.0.0.1", port)
                connection.request(
                    "POST",
                    "/api/v1/projects",
                    json.dumps(
                        {
                            "root": str(project),
                            "inbox": "inbox",
                            "defaults": {
                                "prompt": "idle",
                                "video": {"duration_seconds": 1, "resolution": "360p"},
                                "export": {
                                    "frame_count": 4,
                                    "output_width": 64,
                                    "output_height": 64,
                                },
                            },
                        }
                    ),
                    headers,
                )
                assert connection.getresponse().status == 201
                connection.close()
                return project

            # Idle: nothing dropped, nothing running; first with no project at all.
            idle_rows = [("no watched project (baseline)", *idle(daemon.pid, args.idle_seconds))]
            project = register("game")
            idle_rows.append(("1 watched project", *idle(daemon.pid, args.idle_seconds)))
            for n in range(1, 20):
                register(f"game{n}")
            idle_rows.append(("20 watched projects", *idle(daemon.pid, args.idle_seconds)))
            idle_rss = rss_mb(daemon.pid)

            events: dict[str, float] = {}
            stream = http.client.HTTPConnection("127.0.0.1", port)
            stream.request("GET", "/api/v1/events", headers={"Authorization": f"Bearer {token}"})
            response = stream.getresponse()

            def read() -> None:
                while True:
                    line = response.readline()
                    if not line:
                        return
                    if line.startswith(b"data: "):
                        job = json.loads(line[6:])
                        events.setdefault(job["name"], time.perf_counter())

            threading.Thread(target=read, daemon=True).start()
            latencies = []
            for i in range(args.drops):
                path = project / "inbox" / f"drop{i}.png"
                path.write_bytes(png(i))
                written = time.perf_counter()
                while f"drop{i}" not in events:
                    time.sleep(0.005)
                latencies.append(events[f"drop{i}"] - written)
                time.sleep(0.3)
            (work / "raw").mkdir()
            baseline = baseline_latency(work / "raw", args.drops)
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=30)
    median = statistics.median(latencies)
    beyond = [t - STABLE for t in latencies]
    print(f"{args.drops} drops into a watched inbox (stability window {STABLE:g} s)")
    print(f"  bare watchdog event (baseline)   median {statistics.median(baseline) * 1000:6.1f} ms")
    print(
        f"  drop to job, end of write        median {median * 1000:6.1f} ms, "
        f"max {max(latencies) * 1000:.1f} ms"
    )
    print(
        f"  beyond the stability window      median {statistics.median(beyond) * 1000:6.1f} ms, "
        f"max {max(beyond) * 1000:.1f} ms (target < 500 ms)"
    )
    print(f"idle daemon over {args.idle_seconds:g} s each ({idle_rss:.0f} MB resident at the end)")
    base = idle_rows[0][1]
    for label, wakes, cpu in idle_rows:
        print(
            f"  {label:30s} {wakes:6.2f} wake-ups/s ({wakes - base:+6.2f} over the baseline), "
            f"{cpu:.2f}% of one core"
        )


if __name__ == "__main__":
    main()
