"""Driving `companion mcp` the way a coding agent does: the SDK's own client, over stdio
(the command spawned with its COMPANION_HOME) or over HTTP (the daemon's /mcp with its
token), in either protocol era, with the sandbox's account read before and after."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitRequestParams, ElicitResult

from companion.sandbox import SandboxConfig, SandboxThread
from tests.conftest import ROOMY, TEST_KEY
from tests.support.calls import Api
from tests.support.daemon import DaemonThread
from tests.support.paths import REPO

# The handshake era (initialize) and the per-request era the SDK speaks.
ERAS = ("legacy", "2026-07-28")
Elicit = Callable[[Any, ElicitRequestParams], Awaitable[ElicitResult]]


def godot_sample(tmp_path: Path) -> Path:
    """A working copy of samples/godot (its pictures under art/), the addon copied in."""
    project = tmp_path / "game"
    shutil.copytree(REPO / "samples" / "godot", project, symlinks=False)
    return project


def agent_home(tmp_path: Path, project: Path, agents: dict[str, Any] | None = None) -> Path:
    """A COMPANION_HOME whose config.yaml registers project (Godot) and sets agents:."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    config: dict[str, Any] = {"projects": [{"root": str(project), "engine": "godot"}]}
    if agents is not None:
        config["agents"] = agents
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    return home


def animate_body(project: Path, picture: str = "hero", **extra: Any) -> dict[str, Any]:
    return {
        "project_root": str(project),
        "image_path": f"art/{picture}.png",
        "prompt": "idle breathing",
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "export": {
            "frame_count": 4,
            "output_width": 64,
            "output_height": 64,
            "output_formats": ["spritesheet", "spritesheet_json", "godot_pack"],
        },
        **extra,
    }


def stdio_client(
    home: Path,
    sandbox: SandboxThread,
    mode: str,
    *,
    env: dict[str, str] | None = None,
    elicit: Elicit | None = None,
) -> Client:
    """`python -m companion mcp` spawned on home, against sandbox (its daemon started in
    that process, as an agent's first call finds none)."""
    environ = {
        **os.environ,
        "COMPANION_HOME": str(home),
        "COMPANION_BASE_URL": sandbox.base_url,
        "COMPANION_API_KEY": TEST_KEY,
        "PYTHONPATH": str(REPO),
        **(env or {}),
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "companion", "mcp"], env=environ, cwd=str(REPO)
    )
    return Client(params, mode=mode, elicitation_callback=elicit, read_timeout_seconds=60)


def http_client(
    daemon: DaemonThread, mode: str, *, token: str | None = None, elicit: Elicit | None = None
) -> Client:
    """The daemon's /mcp, with its token as the Bearer key (or another token)."""
    key = daemon.info["token"] if token is None else token
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, trust_env=False)
    transport = streamable_http_client(daemon.url + "/mcp", http_client=http)
    return Client(transport, mode=mode, elicitation_callback=elicit, read_timeout_seconds=60)


def answering(action: str, approve: bool = True) -> tuple[Elicit, list[str]]:
    """An elicitation callback answering every question with action, and the questions."""
    asked: list[str] = []

    async def callback(context: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(str(getattr(params, "message", "")))
        if action == "accept":
            return ElicitResult(action="accept", content={"approve": approve})
        return ElicitResult(action=action)  # type: ignore[arg-type]

    return callback, asked


def balance(sandbox: SandboxThread) -> int:
    available: int = Api(sandbox.base_url, key=TEST_KEY).get("/credits/balance").json["available"]
    return available


def files_under(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


class Served:
    """A sandbox and a daemon serving /mcp for the Godot sample under root, its agent
    limits as given (None: no limits, every paid call asks)."""

    def __init__(self, root: Path, agents: dict[str, Any] | None = None) -> None:
        self.sandbox = SandboxThread(
            SandboxConfig(
                api_keys=[TEST_KEY], task_seconds=0.3, limits=ROOMY, min_retry_after=0,
                journal=True,
            )
        ).start()  # fmt: skip
        self.root = root
        self.project = godot_sample(root)
        self.home = agent_home(root, self.project, agents)
        self.daemon = DaemonThread(self.home, self.sandbox.base_url, TEST_KEY).start()

    def stop(self) -> None:
        self.daemon.stop()
        self.sandbox.stop()
