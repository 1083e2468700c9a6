"""Client manners and download speed, each against a baseline in the same run.

Part A: N one-click tasks through a sandbox at the registered tier's limits (1 running,
3 queued, 3 creates and 60 other requests a minute). The companion client (shared pacer,
Retry-After honoured) against a naive client that creates at once and polls every
0.5 s, each on a fresh sandbox. Reports API requests per task, the minimum implied by
Retry-After (1 create plus ceil(T / R) reads per task, T from acceptance to finish, R the
largest Retry-After given for it), the count of 429s and the wall time.

Part B: a large asset downloaded from a sandbox process by the companion's downloader
and by curl, on loopback; throughput ratio (target at least 0.7 of curl) and the
downloader's peak memory at two file sizes (it should not grow with the file).

    python bench/client_bench.py [--tasks N] [--megabytes M]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import aiohttp
from _common import sandbox_process  # bench/ is on sys.path when run

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.api.client import Client  # noqa: E402
from companion.api.keys import new_idempotency_key  # noqa: E402
from companion.api.schema import AnimationCreate  # noqa: E402
from companion.sandbox import SandboxConfig, SandboxThread  # noqa: E402
from companion.sandbox.state import AssetRecord, State, StateFile, iso, now, stable_id  # noqa: E402
from tests.support.sandbox import animation_body  # noqa: E402

KEY = "sk-bench"


def body() -> dict[str, Any]:
    return animation_body(formats=["spritesheet", "spritesheet_json"])


async def companion_run(base: str, tasks: int) -> None:
    async with Client(base, KEY) as client:
        await client.refresh_limits()
        model = AnimationCreate.model_validate(body())

        async def one() -> None:
            task = await client.create_animation(model, idempotency_key=new_idempotency_key())
            await client.wait_for_task(task, timeout=600)

        await asyncio.gather(*(one() for _ in range(tasks)))


async def naive_run(base: str, tasks: int) -> None:
    headers = {"Authorization": f"Bearer {KEY}"}
    async with aiohttp.ClientSession(headers=headers) as session:

        async def one() -> None:
            key = f"naive-{uuid.uuid4()}"
            while True:
                async with session.post(
                    f"{base}/animations", json=body(), headers={"Idempotency-Key": key}
                ) as r:
                    task = await r.json()
                    if r.status == 202:
                        break
                await asyncio.sleep(1.0)
            while task.get("status") not in ("succeeded", "failed", "cancelled"):
                await asyncio.sleep(0.5)
                async with session.get(f"{base}/animations/{task['id']}") as r:
                    if r.status == 200:
                        task = await r.json()

        await asyncio.gather(*(one() for _ in range(tasks)))


def measure_manners(runner: Any, tasks: int) -> dict[str, float]:
    config = SandboxConfig(api_keys=[KEY], tier="registered", task_seconds=3.0, journal=True)
    with SandboxThread(config) as sandbox:
        started = time.perf_counter()
        asyncio.run(runner(sandbox.base_url, tasks))
        wall = time.perf_counter() - started
        entries = list(sandbox.service.journal.entries)
        records = sandbox.call(lambda: list(sandbox.service.state.tasks.values()))
    api = [e for e in entries if e.origin == "api" and e.path.startswith("/v1/animations")]
    minimum = 0
    for task in records:  # type: ignore[attr-defined]
        path = f"/v1/animations/{task.id}"
        largest = max(
            (e.retry_after or 1 for e in api if e.path == path and e.retry_after), default=1
        )
        span = (parse_time(task.finished_at) - parse_time(task.created_at)).total_seconds()
        minimum += 1 + math.ceil(max(0.0, span) / max(1, largest))
    return {
        "requests_per_task": len(api) / tasks,
        "minimum_per_task": minimum / tasks,
        "429s": sum(1 for e in api if e.status == 429),
        "wall": wall,
    }


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def big_asset_state(folder: Path, megabytes: int) -> tuple[Path, str]:
    """A sandbox state holding one large asset, written before the sandbox starts."""
    state = State()
    account = stable_id("account", "default")
    blob = folder / "state.json.data" / "big.bin"
    blob.parent.mkdir(parents=True)
    with blob.open("wb") as sink:
        for _ in range(megabytes):
            sink.write(os.urandom(1 << 20))
    asset_id = str(uuid.uuid4())
    state.assets[asset_id] = AssetRecord(
        asset_id,
        account,
        "frames_zip",
        "application/zip",
        blob.stat().st_size,
        iso(now()) or "",
        str(blob),
    )
    path = folder / "state.json"
    StateFile(path).save(state)
    return path, asset_id


DOWNLOADER = """
import asyncio, json, sys, time
from pathlib import Path
from bench._common import status_mb
from companion.api.client import Client
async def main():
    async with Client(sys.argv[1], sys.argv[2]) as client:
        asset = await client.get_asset(sys.argv[3])
        started = time.perf_counter()
        await client.download_asset(asset, Path(sys.argv[4]))
        return time.perf_counter() - started
seconds = asyncio.run(main())
print(json.dumps({"seconds": seconds,
                  "peak_mb": status_mb("self", "VmHWM")}))
"""


def measure_download(megabytes: int) -> dict[str, float]:
    work = Path(tempfile.mkdtemp(prefix="client-bench-"))
    try:
        state, asset_id = big_asset_state(work, megabytes)
        with sandbox_process(
            "--api-key", KEY, "--state", str(state), "--limits", "1,3,1000,100000"
        ) as base:
            ours = json.loads(
                subprocess.run(
                    [sys.executable, "-c", DOWNLOADER, base, KEY, asset_id, str(work / "ours.bin")],
                    cwd=ROOT,
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.strip()
            )
            curl_seconds = float("nan")
            if shutil.which("curl"):
                import urllib.request

                request = urllib.request.Request(
                    f"{base}/assets/{asset_id}", headers={"Authorization": f"Bearer {KEY}"}
                )
                url = json.loads(urllib.request.urlopen(request).read())["download_url"]
                started = time.perf_counter()
                subprocess.run(["curl", "-s", "-L", "-o", str(work / "curl.bin"), url], check=True)
                curl_seconds = time.perf_counter() - started
        size = megabytes * (1 << 20)
        return {
            "ours_mbps": size / ours["seconds"] / 1e6,
            "curl_mbps": size / curl_seconds / 1e6,
            "peak_mb": ours["peak_mb"],
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--megabytes", type=int, default=400)
    args = parser.parse_args()

    ours = measure_manners(companion_run, args.tasks)
    naive = measure_manners(naive_run, args.tasks)
    print(f"Part A: {args.tasks} one-click tasks at the registered limits, 3 s tasks")
    for label, row in (("companion client", ours), ("naive 0.5 s poller", naive)):
        print(
            f"  {label:<19} {row['requests_per_task']:6.1f} requests/task  "
            f"(minimum implied by Retry-After {row['minimum_per_task']:.1f})  "
            f"429s: {row['429s']:.0f}  wall {row['wall']:.0f} s"
        )
    print(
        f"  requests per task, companion / naive: "
        f"{ours['requests_per_task'] / naive['requests_per_task']:.2f}"
    )

    small = measure_download(max(16, args.megabytes // 8))
    large = measure_download(args.megabytes)
    print(
        f"Part B: download of a {args.megabytes} MiB asset over loopback (redirect to a "
        f"second origin)"
    )
    print(f"  companion downloader {large['ours_mbps']:8.0f} MB/s")
    print(f"  curl                 {large['curl_mbps']:8.0f} MB/s")
    print(f"  ratio companion/curl: {large['ours_mbps'] / large['curl_mbps']:.2f} (target >= 0.7)")
    print(
        f"  downloader peak RSS: {small['peak_mb']:.0f} MB for {max(16, args.megabytes // 8)} "
        f"MiB, {large['peak_mb']:.0f} MB for {args.megabytes} MiB"
    )


if __name__ == "__main__":
    main()
