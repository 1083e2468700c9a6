"""Start the sandbox: in-process (async or on a background thread) or as a command.

Two origins: the API on one port and the asset storage on another, like a real service
behind a CDN. The access log stays off: its lines would carry signed download URLs."""

from __future__ import annotations

import asyncio
import signal
import threading
from types import TracebackType

from aiohttp import web

from companion.sandbox.app import SandboxConfig, SandboxService
from companion.sandbox.handlers import Handlers


class Sandbox:
    def __init__(
        self, config: SandboxConfig, host: str = "127.0.0.1", port: int = 0, storage_port: int = 0
    ) -> None:
        self.config = config
        self.host = host
        self.port = port
        self.storage_port = storage_port
        self.service: SandboxService | None = None
        self._runners: list[web.AppRunner] = []

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    async def start(self) -> None:
        service = SandboxService(self.config)
        self.service = service
        api = service.build_app(Handlers(service).routes())
        self.port = await self._serve(api, self.port)
        self.storage_port = await self._serve(service.storage.storage_app(), self.storage_port)
        service.storage.api_base = self.base_url
        service.storage.storage_base = f"http://{self.host}:{self.storage_port}"
        service.runner.resume_all()

    async def _serve(self, app: web.Application, port: int) -> int:
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, port)
        await site.start()
        self._runners.append(runner)
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None) or []
        return int(sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self.service is not None:
            await self.service.close()
        for runner in reversed(self._runners):
            await runner.cleanup()
        self._runners.clear()

    async def __aenter__(self) -> Sandbox:
        await self.start()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.stop()


class SandboxThread:
    """A sandbox on its own event loop in a background thread, for synchronous callers."""

    def __init__(self, config: SandboxConfig, host: str = "127.0.0.1", port: int = 0) -> None:
        self.sandbox = Sandbox(config, host, port)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="sandbox", daemon=True)

    @property
    def base_url(self) -> str:
        return self.sandbox.base_url

    @property
    def service(self) -> SandboxService:
        assert self.sandbox.service is not None
        return self.sandbox.service

    def start(self) -> SandboxThread:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.sandbox.start(), self._loop).result(timeout=30)
        return self

    def call(self, fn: object) -> object:
        """Run a function on the sandbox's loop (to read its state consistently)."""

        async def run() -> object:
            return fn()  # type: ignore[operator]

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result(timeout=30)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.sandbox.stop(), self._loop).result(timeout=60)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def __enter__(self) -> SandboxThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


async def serve_forever(sandbox: Sandbox, announce: bool = True) -> None:
    await sandbox.start()
    if announce:
        print(sandbox.base_url, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await sandbox.stop()
