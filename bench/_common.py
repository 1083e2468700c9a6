"""What the benchmark scripts share: free ports, and a sandbox in its own process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def sandbox_process(*options: str) -> Iterator[str]:
    """`companion sandbox` on a free port with these options; yields its base URL and
    stops it afterwards, whatever happened."""
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", "sandbox", "--port", "0", *options],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert process.stdout is not None
        base = process.stdout.readline().strip()
        if not base:
            raise SystemExit("the sandbox did not start")
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)
