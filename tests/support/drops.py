"""Files a hostile or careless drop folder holds, for the watcher's tests and bench."""

from __future__ import annotations

import io
import struct
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from PIL import Image

from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.calls import request
from tests.support.daemon import DaemonThread

# A small, quick animation: the settings every drop test's project gets.
EXPORT = {
    "frame_count": 4,
    "output_width": 64,
    "output_height": 64,
    "output_formats": ["spritesheet", "spritesheet_json"],
}
DEFAULTS = {
    "prompt": "idle breathing",
    "export": EXPORT,
    "video": {"duration_seconds": 1, "resolution": "360p"},
}


def png_bytes(seed: int, side: int = 48) -> bytes:
    buffer = io.BytesIO()
    rng = np.random.default_rng(seed)
    Image.fromarray(rng.integers(0, 255, (side, side, 3), dtype=np.uint8)).save(buffer, "PNG")
    return buffer.getvalue()


def header_bomb(width: int = 20000, height: int = 20000) -> bytes:
    """A small PNG whose header claims width x height (its data is one zlib stream of
    zeros: decoding it would allocate the full claimed size)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = zlib.compress(b"\x00" * 4096)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def slow_write(path: Path, data: bytes, chunks: int = 3, pause: float = 0.9) -> None:
    """An artist saving over a network share: the file grows in pieces, pause apart."""
    step = len(data) // chunks + 1
    with path.open("wb") as sink:
        for start in range(0, len(data), step):
            sink.write(data[start : start + step])
            sink.flush()
            if start + step < len(data):
                time.sleep(pause)


def outputs_by_job(jobs: list[dict[str, object]]) -> dict[str, list[str]]:
    """Installed path -> the ids of the jobs that installed it."""
    seen: dict[str, list[str]] = {}
    for job in jobs:
        for output in job.get("outputs") or []:  # type: ignore[attr-defined]
            if output.get("installed_path"):
                seen.setdefault(str(output["installed_path"]), []).append(str(job["id"]))
    return seen


def heavy_png(side: int = 4096) -> bytes:
    """A picture that is small on disk and slow to decode: side x side of gradients."""
    pixels = np.zeros((side, side, 3), np.uint8)
    pixels[:, :, 0] = np.arange(side)[None, :] % 256
    pixels[:, :, 1] = np.arange(side)[:, None] % 256
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


def with_text(png: bytes, text: str) -> bytes:
    """The same picture with a tEXt chunk after the header: other bytes, same decoding."""
    body = b"tEXt" + b"Comment\x00" + text.encode()
    chunk = struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body))
    return png[:33] + chunk + png[33:]


def start_daemon(
    sandbox: SandboxThread, home: Path, config: dict[str, Any] | None = None
) -> DaemonThread:
    home.mkdir(parents=True, exist_ok=True)
    if config:
        (home / "config.yaml").write_text(yaml.safe_dump(config))
    running = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    assert running.daemon is not None
    running.daemon.stable_seconds = 0.3
    return running


def healthy(running: DaemonThread) -> bool:
    reply = request("GET", running.url + "/api/v1/health", timeout=5)
    return reply.status == 200


def wait_until(check: Callable[[], bool], running: DaemonThread, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert healthy(running), "the daemon stopped answering"
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds} s")


def reason(inbox: Path, name: str) -> str:
    return (inbox / "failed" / f"{name}.error.txt").read_text()
