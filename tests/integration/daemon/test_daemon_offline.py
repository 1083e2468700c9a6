"""A daemon users can rely on: it starts with the service away, says so, queues work and
goes on when the service answers; and one daemon per COMPANION_HOME."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.media.demo_art import draw_character
from companion.sandbox import SandboxConfig, SandboxThread
from tests.conftest import ROOMY, TEST_KEY
from tests.support.calls import Reply, request
from tests.support.cli import environment

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Served:
    def __init__(self, process: subprocess.Popen[str], home: Path, log: Path) -> None:
        self.process, self.home, self.log = process, home, log

    def retried(self) -> list[str]:
        """The calls the daemon retried (its log says each retry), the probe's aside."""
        lines = self.log.read_text().splitlines()
        return [line for line in lines if "retrying" in line and "/account" not in line]

    @property
    def info(self) -> dict[str, Any]:
        return json.loads((self.home / "daemon.json").read_text())

    def call(self, method: str, path: str, body: Any = None) -> Reply:
        info = self.info
        headers = {"Authorization": f"Bearer {info['token']}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        return request(method, f"http://127.0.0.1:{info['port']}{path}", body=data, headers=headers)


def _serve(env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    with log.open("w") as sink:  # a file, not a pipe: read while the daemon runs
        return subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--port", "0"],
            stdout=sink,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Served, int]]:
    """`companion serve` against a service address where nothing listens yet."""
    port = _free_port()
    home = tmp_path / "home"
    log = tmp_path / "serve.log"
    process = _serve(environment(f"http://127.0.0.1:{port}/v1", home), log)
    try:
        deadline = time.monotonic() + 20  # it used to give up after 28 s of retries
        while not (home / "daemon.json").exists():
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the daemon did not start offline"
            time.sleep(0.1)
        yield Served(process, home, log), port
    finally:
        process.terminate()
        process.wait(30)


def _animate_body(project: Path) -> dict[str, Any]:
    return {
        "project_root": str(project),
        "image_path": "art/hero.png",
        "prompt": "idle",
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "export": {
            "frame_count": 4,
            "output_width": 64,
            "output_height": 64,
            "output_formats": ["spritesheet", "spritesheet_json"],
        },
    }


def test_serve_starts_offline_says_so_and_runs_queued_work_once_the_service_answers(
    served: tuple[Served, int], tmp_path: Path
) -> None:
    daemon, port = served
    status = daemon.call("GET", "/api/v1/status")
    assert status.status == 200, status.body
    assert status.json["reachable"] is False and status.json["service_error"]
    project = tmp_path / "game"
    (project / "art").mkdir(parents=True)
    draw_character(64).save(project / "art" / "hero.png")
    assert daemon.call("POST", "/api/v1/projects", {"root": str(project)}).status == 201
    # What needs the service says so at once (503), not a 502 after the client's retries.
    quote = daemon.call("POST", "/api/v1/quote", _animate_body(project))
    assert quote.status == 503 and quote.error["code"] == "SERVICE_UNREACHABLE", quote.body
    assert daemon.call("GET", "/api/v1/models").status == 503
    accepted = daemon.call("POST", "/api/v1/animate", _animate_body(project))
    assert accepted.status == 202, accepted.body
    # Accepted at once too: its checks did not wait out the client's retries against a
    # service the daemon knows is away (the model listing was asked 8 times, ~20 s).
    assert daemon.retried() == [], daemon.retried()
    job_id = accepted.json["id"]
    time.sleep(0.5)
    assert daemon.call("GET", f"/api/v1/jobs/{job_id}").json["state"] == "new"  # queued
    config = SandboxConfig(api_keys=[TEST_KEY], task_seconds=0.3, limits=ROOMY, min_retry_after=0)
    sandbox = SandboxThread(config, port=port).start()
    try:
        deadline = time.monotonic() + 90
        while (job := daemon.call("GET", f"/api/v1/jobs/{job_id}").json)["state"] != "done":
            assert job["state"] not in ("failed", "cancelled"), job
            assert time.monotonic() < deadline, job
            time.sleep(0.2)
        assert job["preview"] is True
        assert daemon.call("GET", "/api/v1/status").json["reachable"] is True
    finally:
        sandbox.stop()


def test_a_second_daemon_on_the_same_home_holds_off_and_names_the_first(
    served: tuple[Served, int],
) -> None:
    daemon, port = served
    before = daemon.info
    env = environment(f"http://127.0.0.1:{port}/v1", daemon.home)
    second = subprocess.run(
        [sys.executable, "-m", "companion", "serve", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert second.returncode == 1, second.stderr
    assert f"pid {daemon.process.pid}" in second.stderr
    assert "already serves" in second.stderr
    # The first is untouched and still reachable through its daemon.json.
    assert daemon.info == before
    assert daemon.call("GET", "/api/v1/health").status == 200
    status = subprocess.run(
        [sys.executable, "-m", "companion", "status"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert status.returncode == 0 and f"pid {daemon.process.pid}" in status.stdout
    assert "does not answer" in status.stdout  # nothing listens at the service address
    # Its link holds a single-use code, never the daemon's token.
    assert "/?code=" in status.stdout and before["token"] not in status.stdout


def test_status_of_a_dead_daemon_is_one_error_and_no_listing(tmp_path: Path) -> None:
    """A daemon killed where it stood leaves its daemon.json: status says it does not
    answer and how to restart it, and lists nothing that reads as running."""
    home = tmp_path / "home"
    home.mkdir()
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    info = {"pid": 999999, "port": port, "token": "t" * 32, "version": "0.1.0"}
    (home / "daemon.json").write_text(json.dumps(info))

    def status() -> subprocess.CompletedProcess[str]:
        env = environment("http://127.0.0.1:9/v1", home)
        command = [sys.executable, "-m", "companion", "status"]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)

    ended = status()
    assert ended.returncode != 0 and ended.stdout == "", ended.stdout
    # Its pid has ended: said as not running, not as a daemon that hangs.
    assert "the daemon is not running (pid 999999, which wrote its daemon.json, has ended)" in (
        ended.stderr
    )
    assert "start it with: companion serve" in ended.stderr
    # A daemon whose process lives but does not answer (this test's own pid stands in).
    (home / "daemon.json").write_text(json.dumps({**info, "pid": os.getpid()}))
    hung = status()
    assert hung.returncode != 0 and hung.stdout == "", hung.stdout
    assert f"(pid {os.getpid()}) does not answer on 127.0.0.1:{port}" in hung.stderr
