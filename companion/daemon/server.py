"""`companion serve`: the engine, the localhost API, and daemon.json.

daemon.json (port, token, pid, version) is written with mode 0600 where only this user
can read it; the plugins read the token from there. SIGINT and SIGTERM stop the daemon
cleanly: workers stop between steps (every job resumes from its record next time), the
listener closes and daemon.json is removed."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from companion import __version__
from companion.api.client import shared_pacer
from companion.api.schema import AccountResponse
from companion.api.transport import RetryPolicy
from companion.daemon.app import Daemon
from companion.daemon.config_watch import ConfigWatch
from companion.daemon.errors import HomeInUse
from companion.daemon.lock import HomeLock
from companion.daemon.reach import Reach
from companion.daemon.registry import register_listed
from companion.runtime import open_client, open_endpoint, open_engine
from companion.settings.config import Settings
from companion.store import Store
from companion.store.errors import TeamUnavailable

log = logging.getLogger("companion.daemon")
HEADROOM = 0.2  # a fifth of the account's request budget stays free for interactive calls
OFFLINE_WORKERS = 2  # until the account's limits are known
# A look at the service that answers in seconds: the start and the status page wait on it.
PROBE_POLICY = RetryPolicy(max_attempts=2, deadline=8.0)


def write_daemon_file(path: Path, info: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.unlink(missing_ok=True)
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as sink:
        json.dump(info, sink)
    temporary.replace(path)


async def serve(
    settings: Settings,
    *,
    port: int = 0,
    ready: Callable[[Daemon], Awaitable[None] | None] | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    stop = stop or asyncio.Event()
    # Before anything is opened or written: a second daemon on this home holds off.
    lock = HomeLock(settings.home)
    lock.acquire()
    try:
        await _serve(settings, port, ready, stop)
    finally:
        lock.release()


async def _serve(
    settings: Settings,
    port: int,
    ready: Callable[[Daemon], Awaitable[None] | None] | None,
    stop: asyncio.Event,
) -> None:
    store = Store(settings.database)
    daemon_file = settings.home / "daemon.json"
    try:
        async with open_endpoint(settings, long_lived=True) as endpoint:
            pacer = shared_pacer(endpoint.base_url, endpoint.api_key)
            pacer.headroom = HEADROOM
            async with (
                open_client(endpoint, settings.retry_attempts, pacer=pacer) as client,
                open_engine(client, endpoint, settings, store) as engine,
            ):
                daemon = Daemon(
                    engine,
                    home=settings.home,
                    token=secrets.token_urlsafe(32),
                    sandbox=endpoint.sandbox,
                    service_label=endpoint.label,
                    workers=OFFLINE_WORKERS,
                )

                def limits_known(account: AccountResponse) -> None:
                    daemon.set_workers(account.limits.concurrency + account.limits.queue)

                daemon.reach = Reach(lambda: client.refresh_limits(PROBE_POLICY), limits_known)
                # Away, the daemon starts all the same; queued work waits for the service.
                await daemon.reach.first_look()
                register_listed(store, settings.projects)  # config.yaml's projects
                runner = web.AppRunner(
                    daemon.app(), access_log=None, handle_signals=False, shutdown_timeout=5.0
                )
                await runner.setup()
                site = web.TCPSite(runner, "127.0.0.1", port)
                await site.start()
                sockets = getattr(site._server, "sockets", None) or []
                daemon.port = int(sockets[0].getsockname()[1])
                await daemon.start()
                # A project added to config.yaml later is taken without a restart.
                config_watch = ConfigWatch(settings.home, store, daemon.watch)
                config_watch.start()
                write_daemon_file(
                    daemon_file,
                    {
                        "port": daemon.port,
                        "token": daemon.token,
                        "pid": os.getpid(),
                        "version": __version__,
                        "url": f"http://127.0.0.1:{daemon.port}",
                    },
                )
                log.info(
                    "daemon listening on http://127.0.0.1:%d (%s)", daemon.port, endpoint.label
                )
                if ready is not None:
                    result = ready(daemon)
                    if result is not None:
                        await result
                try:
                    await stop.wait()
                finally:
                    await config_watch.stop()
                    await daemon.stop()
                    await runner.cleanup()
                    daemon_file.unlink(missing_ok=True)
    finally:
        store.close()


def run_forever(settings: Settings, port: int) -> int:
    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        if sys.platform != "win32":  # Windows has no loop signal handlers: Ctrl+C ends run()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)

        def announce(daemon: Daemon) -> None:
            away = daemon.reach is not None and not daemon.reach.reachable
            print(
                f"companion daemon on http://127.0.0.1:{daemon.port} "
                f"({'embedded sandbox' if daemon.sandbox else daemon.service_label}"
                f"{', not answering yet: work waits for it' if away else ''}); "
                f"token in {settings.home / 'daemon.json'}",
                flush=True,
            )

        await serve(settings, port=port, ready=announce, stop=stop)

    try:
        asyncio.run(main())
    except (TeamUnavailable, HomeInUse) as exc:
        print(f"companion: error: {exc}", file=sys.stderr)
        return 1
    return 0
