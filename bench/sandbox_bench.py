"""Sandbox throughput on loopback: task reads and creates per second.

The sandbox runs as its own process (`companion sandbox`, limits lifted); a load
generator in this process keeps CONCURRENCY requests in flight for a few seconds. As a
baseline in the same run, the same generator measures a bare aiohttp handler that returns
a constant JSON body: the ceiling of this machine and generator. Prints requests per
second, and the sandbox's reads as a fraction of the baseline.

    python bench/sandbox_bench.py [--seconds S] [--concurrency N]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import subprocess
import sys
import time
import uuid
from pathlib import Path

import aiohttp
from _common import free_port, sandbox_process  # bench/ is on sys.path when run
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-bench"
HEADERS = {"Authorization": f"Bearer {KEY}"}


async def hammer(make_request, seconds: float, concurrency: int) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    """Requests per second over `seconds`, and how many were not 2xx."""
    done = failed = 0
    deadline = time.perf_counter() + seconds
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def worker() -> None:
            nonlocal done, failed
            while time.perf_counter() < deadline:
                async with make_request(session) as response:
                    await response.read()
                    done += 1
                    failed += response.status >= 300

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return done / (time.perf_counter() - started), failed


BASELINE_SERVER = """
import asyncio, sys
from aiohttp import web
body = b'{"object":"video_generation","status":"queued","progress":0}'
async def handler(request):
    return web.Response(body=body, content_type="application/json")
async def main():
    app = web.Application()
    app.router.add_get("/v1/thing/{id}", handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", int(sys.argv[1])).start()
    print("ready", flush=True)
    await asyncio.Event().wait()
asyncio.run(main())
"""


def baseline(seconds: float, concurrency: int) -> float:
    """The same load against a bare aiohttp handler in its own process."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", BASELINE_SERVER, str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        server.stdout.readline()
        url = f"http://127.0.0.1:{port}/v1/thing/{uuid.uuid4()}"
        rate, _ = asyncio.run(hammer(lambda s: s.get(url), seconds, concurrency))
        return rate
    finally:
        server.terminate()
        server.wait(timeout=30)


async def sandbox_rates(base: str, seconds: float, concurrency: int) -> tuple[float, float, int]:
    async with aiohttp.ClientSession(headers=HEADERS) as session:
        buffer = io.BytesIO()
        Image.new("RGB", (64, 64), (200, 40, 40)).save(buffer, "PNG")
        form = aiohttp.FormData()
        form.add_field("file", buffer.getvalue(), filename="f.png", content_type="image/png")
        async with session.post(f"{base}/files", data=form) as r:
            file_id = (await r.json())["id"]
        body = {
            "input": {"first_frame": {"type": "file", "file_id": file_id}},
            "prompt": "idle",
            "video": {"duration_seconds": 1, "resolution": "360p"},
        }
        async with session.post(
            f"{base}/video-generations",
            json=body,
            headers={"Idempotency-Key": f"bench-{uuid.uuid4()}"},
        ) as r:
            task_id = (await r.json())["id"]
    read_url = f"{base}/video-generations/{task_id}"
    reads, read_failures = await hammer(
        lambda s: s.get(read_url, headers=HEADERS), seconds, concurrency
    )
    creates, create_failures = await hammer(
        lambda s: s.post(
            f"{base}/video-generations",
            json=body,
            headers={**HEADERS, "Idempotency-Key": f"bench-{uuid.uuid4()}"},
        ),
        seconds,
        concurrency,
    )
    return reads, creates, read_failures + create_failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    with sandbox_process(
        "--api-key",
        KEY,
        "--credits",
        "1000000000",
        "--task-seconds",
        "3600",
        "--limits",
        "1,100000000,100000000,100000000",
    ) as base:
        reads, creates, failures = asyncio.run(sandbox_rates(base, args.seconds, args.concurrency))
    ceiling = baseline(args.seconds, args.concurrency)
    print(
        f"load: {args.concurrency} requests in flight for {args.seconds:g} s each, loopback, "
        f"one generator process"
    )
    print(f"bare aiohttp handler (baseline)  {ceiling:8.0f} req/s")
    print(
        f"sandbox task reads               {reads:8.0f} req/s  ({reads / ceiling:.2f} of baseline)"
    )
    print(
        f"sandbox creates                  {creates:8.0f} req/s  ({creates / ceiling:.2f} of baseline)"
    )
    print(f"non-2xx responses: {failures}")
    print(f"target: at least 1000 task reads per second -> {'met' if reads >= 1000 else 'NOT met'}")


if __name__ == "__main__":
    main()
