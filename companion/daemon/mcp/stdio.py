"""`companion mcp`: the tools over stdio for an agent that starts the command itself. They
talk to the daemon of this COMPANION_HOME when one answers, and otherwise to one started
here, in this process, for as long as the agent keeps the command running (its jobs
survive it: the next daemon resumes them). Stdout carries the protocol alone."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from companion.daemon.app import Daemon
from companion.daemon.errors import CallRefused
from companion.daemon.mcp.link import DaemonLink
from companion.daemon.mcp.tools import Agents, build
from companion.settings.config import Settings

START_SECONDS = 60


async def _answers(link: DaemonLink) -> bool:
    try:
        await link.call("GET", "/api/v1/health")
    except CallRefused:
        return False
    return True


async def _over_stdio(link: DaemonLink, settings: Settings) -> None:
    try:
        await build(Agents(link, settings.home)).run_stdio_async()
    finally:
        await link.close()


async def run(settings: Settings, found: tuple[int, str] | None) -> None:
    """found: the port and token daemon.json names (None: no daemon.json)."""
    if found is not None:
        port, token = found
        link = DaemonLink(lambda: f"http://127.0.0.1:{port}", token)
        if await _answers(link):
            await _over_stdio(link, settings)
            return
        await link.close()
    from companion.daemon.server import serve

    stop = asyncio.Event()
    started: asyncio.Future[Daemon] = asyncio.get_running_loop().create_future()

    def ready(daemon: Daemon) -> None:
        started.set_result(daemon)

    serving = asyncio.create_task(serve(settings, port=0, ready=ready, stop=stop))
    try:
        either: set[asyncio.Future[Any]] = {started, serving}
        done, _ = await asyncio.wait(
            either, timeout=START_SECONDS, return_when=asyncio.FIRST_COMPLETED
        )
        if serving in done:
            serving.result()  # it failed to start: its error says why
        daemon = started.result()
        link = DaemonLink(lambda: f"http://127.0.0.1:{daemon.port}", daemon.token)
        await _over_stdio(link, settings)
    finally:
        stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await serving
