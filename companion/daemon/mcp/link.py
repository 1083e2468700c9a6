"""The tools' way to the daemon: its localhost API on loopback with its token, never
through a proxy, so every check, budget and pay-once rule is the daemon's own."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import aiohttp

from companion.daemon.errors import CallRefused

TIMEOUT = aiohttp.ClientTimeout(total=120)


class DaemonLink:
    """base: the daemon's address, read at each call (the daemon serving /mcp knows its
    port only once it listens); token: its bearer token."""

    def __init__(self, base: Callable[[], str], token: str) -> None:
        self._base = base
        self._token = token
        self._session: aiohttp.ClientSession | None = None

    async def call(self, method: str, path: str, body: Any = None) -> Any:
        """The parsed answer of a 2xx; CallRefused with the daemon's own words otherwise."""
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(trust_env=False, timeout=TIMEOUT)
        headers = {"Authorization": f"Bearer {self._token}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        url = self._base() + path
        try:
            async with self._session.request(method, url, data=data, headers=headers) as reply:
                raw = await reply.read()
                status = reply.status
        except aiohttp.ClientError as exc:
            unreached = f"the daemon does not answer ({exc})"
            raise CallRefused(503, "DAEMON_UNREACHABLE", unreached) from exc
        try:
            answer = json.loads(raw or b"null")
        except ValueError:
            answer = None
        if status >= 400:
            said = answer.get("error") if isinstance(answer, dict) else None
            if isinstance(said, dict):
                raise CallRefused(status, str(said.get("code", "")), str(said.get("message", "")))
            raise CallRefused(status, "REFUSED", f"the daemon answered {status}")
        return answer

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
