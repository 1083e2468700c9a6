"""The ways into the companion that the books machine (tests/support/books_machine.py) drives,
each as its user meets it: `companion serve` in its own process (so it can be killed
with SIGKILL and started again), its localhost API, a watched inbox, and `companion
animate` in its own process. All share one COMPANION_HOME, so one store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.calls import Reply, request
from tests.support.cli import in_process


def environment(home: Path, base_url: str, key: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env.update(COMPANION_HOME=str(home), COMPANION_BASE_URL=base_url, COMPANION_API_KEY=key)
    return env


def wait_for(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what}: not within {seconds} s")


class DaemonProcess:
    """`companion serve` as a process of its own."""

    def __init__(self, home: Path, base_url: str, key: str) -> None:
        self.home, self.env = home, environment(home, base_url, key)
        self.process: subprocess.Popen[bytes] | None = None
        self.log = home / "daemon.log"

    def start(self) -> None:
        home = self.home
        home.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "companion", "serve", "--port", "0"],
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        process = self.process

        def up() -> bool:
            assert process.poll() is None, self.log.read_text()[-2000:]
            try:
                info = json.loads((home / "daemon.json").read_text())
            except (OSError, ValueError):
                return False
            return bool(info.get("pid") == process.pid and info.get("port"))

        wait_for(up, 60, "the daemon starting")

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def call(self, method: str, path: str, body: Any = None, timeout: float = 60) -> Reply:
        info = json.loads((self.home / "daemon.json").read_text())
        headers = {"Authorization": f"Bearer {info['token']}"}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        url = f"http://127.0.0.1:{info['port']}{path}"
        return request(method, url, body=data, headers=headers, timeout=timeout)

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind runs."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        self.process = None


def animate_cli(
    home: Path, base_url: str, key: str, args: list[str]
) -> subprocess.CompletedProcess[str]:
    """`companion animate ARGS`."""
    return companion_cli(home, base_url, key, ["animate", *args])


def companion_cli(
    home: Path, base_url: str, key: str, args: list[str]
) -> subprocess.CompletedProcess[str]:
    """`companion ARGS`, by its main() in this process (no step of the machine kills a
    command: what a kill leaves is the daemon's to show, a process of its own)."""
    return in_process(args, environment(home, base_url, key))


def credits_json(home: Path, base_url: str, key: str) -> dict[str, Any]:
    """What `companion credits --json` prints."""
    done = companion_cli(home, base_url, key, ["credits", "--json"])
    assert done.returncode == 0, done.stderr
    shown: dict[str, Any] = json.loads(done.stdout)
    return shown
