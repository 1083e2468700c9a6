"""The tools at /mcp on the daemon: the SDK's streamable HTTP (both protocol eras) behind
the daemon's middleware, so only this machine with the daemon's token as a Bearer key,
a Host of this machine and no foreign Origin reaches them. Its tools call the daemon on
loopback like any other client, meeting the same checks."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from companion.daemon.http.security import MAX_BODY
from companion.daemon.mcp.asgi import Asgi, mount
from companion.daemon.mcp.link import DaemonLink
from companion.daemon.mcp.tools import Agents, build
from companion.settings.config import load_settings

PATH = "/mcp"


def serve_tools(app: web.Application, port: Callable[[], int], token: str, home: Path) -> None:
    def make() -> tuple[Asgi, Callable[[], Any]]:
        link = DaemonLink(lambda: f"http://127.0.0.1:{port()}", token)
        # The limits of this daemon's home, read at each call (config.yaml may change).
        server = build(Agents(link, home, lambda: load_settings(_environ(home))))
        # Bodies as large as the daemon's own cap: a refusal then names the field.
        asgi = server.streamable_http_app(streamable_http_path=PATH, max_request_body_size=MAX_BODY)

        @contextlib.asynccontextmanager
        async def running() -> AsyncIterator[None]:
            async with server.session_manager.run():
                try:
                    yield
                finally:
                    await link.close()

        return asgi, running

    mount(app, make, PATH)


def _environ(home: Path) -> dict[str, str]:
    return {**os.environ, "COMPANION_HOME": str(home)}
