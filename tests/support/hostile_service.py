"""A hostile service for tests and benches: a loopback server in front of the sandbox that
answers every call in the spec's shapes (the sandbox makes the answers) but rewrites the
assets it returns: a crafted `format` string, crafted bytes (with a byte_size to match)
or both, chosen per original format. Crafted bytes are served from the hostile origin's
own download URLs. Builders for the crafted archives are in hostile_archives.py."""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web

HOP = frozenset(
    {"host", "content-length", "transfer-encoding", "content-encoding", "connection", "keep-alive"}
)


@dataclass(frozen=True)
class Craft:
    format: str | None = None  # the format string the service claims
    content: bytes | None = None  # the bytes it serves instead of the real output


class HostileService:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")  # the sandbox's base URL, .../v1
        self.origin = self.upstream.rsplit("/v1", 1)[0]
        # by the task's metadata name (None: any task), original format -> craft
        self.plans: dict[str | None, dict[str, Craft]] = {}
        self._by_id: dict[str, Craft | None] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self.port = 0
        self.face = "default"  # the face of the sandbox behind it (tests say which)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> HostileService:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(30)
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def craft(self, crafts: dict[str, Craft], name: str | None = None) -> None:
        """The outputs of tasks named name (any task for None) are rewritten by their
        original format, from the first time they are seen."""
        self.plans[name] = dict(crafts)

    async def _start(self) -> None:
        self._session = aiohttp.ClientSession()
        app = web.Application(client_max_size=64 * 2**20)
        app.router.add_get("/crafted/{asset_id}", self._crafted)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = int(server.sockets[0].getsockname()[1])  # type: ignore[union-attr]

    async def _stop(self) -> None:
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _crafted(self, request: web.Request) -> web.StreamResponse:
        craft = self._by_id.get(request.match_info["asset_id"])
        if craft is None or craft.content is None:
            return web.Response(status=404)
        return web.Response(body=craft.content, content_type="application/octet-stream")

    def _rewrite(self, value: Any, plan: dict[str, Craft] | None = None) -> Any:
        if isinstance(value, list):
            return [self._rewrite(v, plan) for v in value]
        if not isinstance(value, dict):
            return value
        metadata = value.get("metadata")
        if isinstance(metadata, dict) and "outputs" in value:
            plan = self.plans.get(metadata.get("name"), self.plans.get(None))
        value = {k: self._rewrite(v, plan) for k, v in value.items()}
        if value.get("object") == "asset" and "format" in value and "id" in value:
            asset_id = str(value["id"])
            if asset_id not in self._by_id and plan is not None:
                self._by_id[asset_id] = plan.get(str(value["format"]))
            craft = self._by_id.get(asset_id)
            if craft is not None:
                if craft.format is not None:
                    value["format"] = craft.format
                if craft.content is not None:
                    value["byte_size"] = len(craft.content)
                    value["download_url"] = f"http://127.0.0.1:{self.port}/crafted/{asset_id}"
        return value

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
        async with self._session.request(
            request.method,
            self.origin + request.path_qs,
            headers=headers,
            data=await request.read(),
            allow_redirects=False,
        ) as upstream:
            body = await upstream.read()
            out = {k: v for k, v in upstream.headers.items() if k.lower() not in HOP}
            if upstream.content_type == "application/json" and body:
                body = json.dumps(self._rewrite(json.loads(body))).encode()
            return web.Response(status=upstream.status, body=body, headers=out)
