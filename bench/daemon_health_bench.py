"""The daemon's /health latency while 200 mixed, partly hostile drops are taken, and
what became of each kind of drop.

A sandbox and `companion serve` run as their own processes. Baseline in the same run:
/health polled on the idle daemon. Then 200 drops land in a watched inbox at once: good
pictures and copies of them, pictures that take ~0.2 s each to decode, slow writers
(0.9 s between pieces), sidecars naming the same animation, and hostile or broken ones
(header bombs declaring 20000x20000, FIFOs, folders where a sidecar goes, symbolic links
out of the project, damaged PNGs, text files). /health is polled throughout (goal: every
answer under 0.2 s), and so is a bare aiohttp server in its own process doing nothing:
the control, which shows what the machine itself adds (other processes share its cores). The table counts, per kind: tried, done, refused (in failed/ with
its reason) and lost (neither), then jobs paid and output paths shared by two jobs.

    python bench/daemon_health_bench.py
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from _common import (  # bench/ is on sys.path when run
    ROOT,
    daemon_process,
    free_port,
    sandbox_process,
)

sys.path.insert(0, str(ROOT))
from tests.support.drops import (
    header_bomb,
    heavy_png,
    outputs_by_job,
    png_bytes,
    slow_write,
    with_text,
)

KEY = "sk-bench"
DEFAULTS = {
    "prompt": "idle",
    "video": {"duration_seconds": 1, "resolution": "360p"},
    "export": {
        "frame_count": 4,
        "output_width": 64,
        "output_height": 64,
        "output_formats": ["spritesheet", "spritesheet_json"],
    },
}


class Daemon:
    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token

    def call(self, method: str, path: str, body: object = None) -> tuple[int, object]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        connection.request(method, path, None if body is None else json.dumps(body), headers)
        response = connection.getresponse()
        status, data = response.status, response.read()
        connection.close()
        return status, json.loads(data) if data else None

    def health(self) -> float:
        started = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request("GET", "/api/v1/health")
        assert connection.getresponse().status == 200
        connection.close()
        return time.perf_counter() - started


CONTROL = """
import sys
from aiohttp import web
async def health(request):
    return web.json_response({"ok": True})
app = web.Application()
app.router.add_get("/api/v1/health", health)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None)
"""


def poll_health(
    daemon: Daemon, control: Daemon, until: threading.Event, sink: list[float], base: list[float]
) -> None:
    while not until.is_set():
        sink.append(daemon.health())
        base.append(control.health())
        time.sleep(0.02)


def stage(work: Path, inbox: Path) -> tuple[dict[str, list[str]], list[Callable[[], None]]]:
    """Files to drop, by kind, made in a staging folder; and the slow writers to start."""
    staging = work / "staging"
    staging.mkdir()
    kinds: dict[str, list[str]] = {}

    def add(kind: str, name: str) -> None:
        kinds.setdefault(kind, []).append(name)

    for i in range(20):
        (staging / f"good{i:02d}.png").write_bytes(png_bytes(i))
        add("good picture", f"good{i:02d}.png")
    for i in range(120):
        (staging / f"copy{i:03d}.png").write_bytes(png_bytes(i % 20))
        add("copy of a good one", f"copy{i:03d}.png")
    heavy = heavy_png()
    for i in range(6):
        (staging / f"heavy{i}.png").write_bytes(with_text(heavy, str(i)))
        add("4096x4096 picture", f"heavy{i}.png")
    for i in range(6):
        (staging / f"heavybad{i}.png").write_bytes(with_text(heavy, f"bad{i}"))
        (staging / f"heavybad{i}.yaml").write_text("export:\n  output_width: 5000\n")
        add("4096x4096, bad sidecar", f"heavybad{i}.png")
    for i in range(12):
        (staging / f"clash{i:02d}.png").write_bytes(png_bytes(100 + i))
        (staging / f"clash{i:02d}.yaml").write_text(f"name: twin{i // 2}\n")
        add("sidecar name clash", f"clash{i:02d}.png")
    for i in range(2):
        folder = staging / f"walk{i}"
        folder.mkdir()
        (folder / "first.png").write_bytes(png_bytes(200 + i))
        (folder / "last.png").write_bytes(png_bytes(210 + i))
        add("folder of frames", f"walk{i}")
    for i in range(5):
        (staging / f"bomb{i}.png").write_bytes(header_bomb(20000 + i, 20000))
        add("header bomb", f"bomb{i}.png")
        os.mkfifo(staging / f"pipe{i}.png")
        add("FIFO", f"pipe{i}.png")
        (staging / f"boxed{i}.png").write_bytes(png_bytes(300 + i))
        (staging / f"boxed{i}.yaml").mkdir()
        add("folder as sidecar", f"boxed{i}.png")
        outside = work / f"outside{i}.png"
        outside.write_bytes(png_bytes(400 + i))
        (staging / f"link{i}.png").symlink_to(outside)
        add("symlink out", f"link{i}.png")
        (staging / f"broken{i}.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(40 + i))
        add("damaged PNG", f"broken{i}.png")
        (staging / f"notes{i}.txt").write_text("not an image")
        add("not an image", f"notes{i}.txt")
    writers = []
    for i in range(4):
        data = png_bytes(500 + i, side=96)
        path = inbox / f"slow{i}.png"
        writers.append(lambda path=path, data=data: slow_write(path, data, 3, 0.9))
        add("slow writer", path.name)
    return kinds, writers


def main() -> None:
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
        control_port = free_port()
        control_process = subprocess.Popen([sys.executable, "-c", CONTROL, str(control_port)])
        control = Daemon(control_port, "")
        process, info = daemon_process(work / "home", env, work / "daemon.log")
        try:
            daemon = Daemon(info["port"], info["token"])
            project = work / "game"
            project.mkdir()
            status, _ = daemon.call(
                "POST",
                "/api/v1/projects",
                {"root": str(project), "inbox": "inbox", "defaults": DEFAULTS},
            )
            assert status == 201
            inbox = project / "inbox"
            time.sleep(1)
            kinds, writers = stage(work, inbox)

            while True:  # the control server is up
                try:
                    control.health()
                    break
                except OSError:
                    time.sleep(0.05)
            idle: list[float] = []
            idle_control: list[float] = []
            stop = threading.Event()
            poller = threading.Thread(
                target=poll_health, args=(daemon, control, stop, idle, idle_control)
            )
            poller.start()
            time.sleep(3)
            stop.set()
            poller.join()

            loaded: list[float] = []
            loaded_control: list[float] = []
            stop = threading.Event()
            poller = threading.Thread(
                target=poll_health, args=(daemon, control, stop, loaded, loaded_control)
            )
            poller.start()
            started = time.perf_counter()
            for entry in sorted((work / "staging").iterdir()):
                entry.rename(inbox / entry.name)
            threads = [threading.Thread(target=w) for w in writers]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            tried = sum(len(v) for v in kinds.values())
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                waiting = [
                    p
                    for p in inbox.iterdir()
                    if p.name not in ("done", "failed", ".processing")
                    and not p.name.endswith(".yaml")
                ]
                if not waiting and not list((inbox / ".processing").iterdir()):
                    _, listed = daemon.call("GET", "/api/v1/jobs")
                    jobs = listed["data"]  # type: ignore[index]
                    if all(j["state"] in ("done", "failed", "cancelled") for j in jobs):
                        break
                time.sleep(0.2)
            else:
                _, listed = daemon.call("GET", "/api/v1/jobs")
                stuck = [
                    (j["name"], j["state"], j["error"])
                    for j in listed["data"]  # type: ignore[index]
                    if j["state"] not in ("done", "failed", "cancelled")
                ]
                left = [p.name for p in inbox.iterdir()] + [
                    p.name for p in (inbox / ".processing").iterdir()
                ]
                print(f"NOT SETTLED after 300 s: jobs {stuck[:10]}, files {left[:20]}")
                for line in (work / "daemon.log").read_text().splitlines()[-40:]:
                    print("  log:", line[:300])
            elapsed = time.perf_counter() - started
            stop.set()
            poller.join()
            _, listed = daemon.call("GET", "/api/v1/jobs")
            jobs = listed["data"]  # type: ignore[index]
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
            control_process.terminate()
            control_process.wait(timeout=30)
        done = {
            p.name
            for p in (inbox / "done").iterdir()
            if not p.name.endswith((".error.txt", ".note.txt"))
        }
        refused = {
            p.name
            for p in (inbox / "failed").iterdir()
            if not p.name.endswith((".error.txt", ".note.txt"))
            and (inbox / "failed" / f"{p.name}.error.txt").exists()
        }
        if os.environ.get("PYTHONASYNCIODEBUG"):  # where the event loop was held up
            for line in (work / "daemon.log").read_text().splitlines():
                if "took" in line and "seconds" in line:
                    print(line[:400])

    def figures(samples: list[float]) -> str:
        ordered = sorted(samples)
        p95 = ordered[int(len(ordered) * 0.95) - 1]
        return (
            f"median {statistics.median(ordered) * 1000:6.1f} ms  p95 {p95 * 1000:6.1f} ms  "
            f"max {ordered[-1] * 1000:7.1f} ms  ({len(ordered)} answers)"
        )

    print(f"/health, idle daemon (baseline):  {figures(idle)}")
    print(f"/health, {tried} drops being taken: {figures(loaded)}")
    print(f"control server, while idle:       {figures(idle_control)}")
    print(f"control server, while loaded:     {figures(loaded_control)}")
    ratio = statistics.median(loaded) / statistics.median(idle)
    print(
        f"  median under load / idle = {ratio:.1f}x; worst answer "
        f"{max(loaded) * 1000:.0f} ms (goal < 200 ms); all drops settled in {elapsed:.1f} s"
    )
    print()
    print(f"{'kind of drop':<26}{'tried':>6}{'done':>6}{'refused':>9}{'lost':>6}")
    totals = [0, 0, 0, 0]
    for kind, names in kinds.items():
        row = [
            len(names),
            sum(n in done for n in names),
            sum(n in refused for n in names),
            sum(n not in done and n not in refused for n in names),
        ]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        print(f"{kind:<26}{row[0]:>6}{row[1]:>6}{row[2]:>9}{row[3]:>6}")
    print(f"{'all':<26}{totals[0]:>6}{totals[1]:>6}{totals[2]:>9}{totals[3]:>6}")
    shared = sum(len(ids) > 1 for ids in outputs_by_job(jobs).values())
    print()
    print(
        f"jobs paid: {len(jobs)} (one per distinct picture and settings); "
        f"output paths shared by two jobs: {shared}"
    )


if __name__ == "__main__":
    main()
