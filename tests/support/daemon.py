"""A daemon on a background thread, against a sandbox, for tests."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

from companion.daemon.app import Daemon
from companion.daemon.server import serve
from companion.media.demo_art import draw_character
from companion.settings.config import load_settings
from tests.support.calls import Reply, request
from tests.support.real_godot import Godot, real_godot  # noqa: F401  (the fixture)


class DaemonThread:
    def __init__(self, home: Path, base_url: str, api_key: str) -> None:
        self.home = home
        self.settings = load_settings(
            {
                "COMPANION_HOME": str(home),
                "COMPANION_BASE_URL": base_url,
                "COMPANION_API_KEY": api_key,
            }
        )
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self.daemon: Daemon | None = None
        self._thread = threading.Thread(target=self._main, daemon=True)
        self.failure: BaseException | None = None

    def _main(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()

            def ready(daemon: Daemon) -> None:
                self.daemon = daemon
                self._ready.set()

            await serve(self.settings, port=0, ready=ready, stop=self._stop)

        try:
            asyncio.run(main())
        except BaseException as exc:
            self.failure = exc
            self._ready.set()

    def start(self) -> DaemonThread:
        self._thread.start()
        self._ready.wait(30)
        if self.failure is not None:
            raise self.failure
        return self

    @property
    def info(self) -> dict[str, Any]:
        return json.loads((self.home / "daemon.json").read_text())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.info['port']}"

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)


def call(
    daemon: DaemonThread,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    token: str | None = "default",
) -> Reply:
    sent = (
        {"Authorization": f"Bearer {daemon.info['token']}"}
        if token == "default"
        else ({"Authorization": f"Bearer {token}"} if token else {})
    )
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    sent.update(headers or {})
    return request(method, daemon.url + path, body=data, headers=sent)


def godot_project(daemon: DaemonThread, tmp_path: Path) -> Path:
    project = tmp_path / "game"
    (project / "art").mkdir(parents=True)
    (project / "project.godot").write_text("config_version=5\n")
    draw_character(64).save(project / "art" / "hero.png")
    reply = call(daemon, "POST", "/api/v1/projects", {"root": str(project), "engine": "godot"})
    assert reply.status == 201, reply.body
    return project


def body(project: Path, prompt: str = "idle", **extra: Any) -> dict[str, Any]:
    return {
        "project_root": str(project),
        "image_path": "art/hero.png",
        "prompt": prompt,
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "export": {
            "frame_count": 4,
            "output_width": 64,
            "output_height": 64,
            "output_formats": ["spritesheet", "spritesheet_json", "godot_pack"],
        },
        **extra,
    }


def wait_final(daemon: DaemonThread, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job: dict[str, Any] = call(daemon, "GET", f"/api/v1/jobs/{job_id}").json
        if job["state"] in ("done", "failed", "cancelled"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not finish")
