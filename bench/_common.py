"""What the benchmark scripts share: free ports, a sandbox and a daemon in their own
processes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def status_mb(pid: int | str, field: str) -> float:
    """A memory line of /proc/PID/status (Linux; pid "self" for this process) in MB:
    VmRSS now, or VmHWM, the process's own peak. getrusage's ru_maxrss is no substitute
    for a child's peak: Linux carries it across fork and exec, so a child reports at
    least its parent's size at the fork. NaN when the process or the line is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


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


def daemon_process(
    home: Path, env: dict[str, str], log: Path
) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    """`companion serve` on a free port (COMPANION_HOME=home is in env), its output in
    log; returns the process and its daemon.json once it is up. The caller stops it."""
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--port", "0"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    info_path = home / "daemon.json"
    while not info_path.exists():
        if process.poll() is not None:
            raise SystemExit("the daemon stopped:\n" + log.read_text())
        time.sleep(0.05)
    time.sleep(0.2)  # written before the port is served
    return process, json.loads(info_path.read_text())
