"""A daemon on a background thread, against a sandbox, for tests."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from companion.daemon.app import Daemon
from companion.daemon.server import serve
from companion.settings.config import load_settings


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
