"""The SDK's streamable-HTTP app (ASGI) served from the daemon's aiohttp application at
/mcp, behind the daemon's own middleware (loopback, Host, Origin, token, body cap): a
request becomes an ASGI scope, the app's answer is streamed back as it is sent (server-
sent events included), and the SDK's session manager lives as long as the application."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from aiohttp import web

Asgi = Callable[[dict[str, Any], Any, Any], Awaitable[None]]
# How often an open stream looks whether its client is still there: aiohttp does not
# cancel a handler whose client left, and a stream that sends nothing would not learn
# it until its next write (the session's streams then outlive it, and hold a shutdown).
CLIENT_LOOK_SECONDS = 0.25


def scope_of(request: web.Request) -> dict[str, Any]:
    peer = request.transport.get_extra_info("peername") if request.transport else None
    host, _, port = (request.host or "127.0.0.1").partition(":")
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": f"{request.version.major}.{request.version.minor}",
        "method": request.method,
        "scheme": "http",
        "path": request.path,
        "raw_path": request.raw_path.split("?", 1)[0].encode(),
        "query_string": request.query_string.encode(),
        "root_path": "",
        "headers": [
            (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in request.headers.items()
        ],
        "client": (str(peer[0]), int(peer[1])) if peer else None,
        "server": (host, int(port) if port.isdigit() else 80),
    }


async def serve_asgi(app: Asgi, request: web.Request) -> web.StreamResponse:
    """One request through app; the response goes out as app sends it."""
    body = await request.read()
    sent_body = False
    finished = asyncio.Event()
    response: web.StreamResponse | None = None

    async def receive() -> dict[str, Any]:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        await finished.wait()  # the app listens for the client going away
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        try:
            await _send(message)
        except ConnectionResetError:  # the client went away: the app hears a disconnect
            finished.set()

    async def _send(message: dict[str, Any]) -> None:
        nonlocal response
        if finished.is_set():
            return
        if message["type"] == "http.response.start":
            response = web.StreamResponse(status=int(message["status"]))
            for key, value in message.get("headers", []):
                name = key.decode("latin-1")
                if name.lower() in ("content-length", "transfer-encoding"):
                    continue  # aiohttp frames the body itself
                response.headers.add(name, value.decode("latin-1"))
            await response.prepare(request)
        elif message["type"] == "http.response.body" and response is not None:
            chunk = message.get("body", b"")
            if chunk:
                await response.write(chunk)
            if not message.get("more_body", False):
                await response.write_eof()
                finished.set()

    async def watch_client() -> None:
        while not finished.is_set():
            transport = request.transport
            if transport is None or transport.is_closing():
                finished.set()  # the app hears a disconnect and ends the stream
                return
            await asyncio.sleep(CLIENT_LOOK_SECONDS)

    watcher = asyncio.create_task(watch_client())
    try:
        await app(scope_of(request), receive, send)
    except ConnectionResetError:  # the client left mid-stream: nothing to answer
        pass
    finally:
        finished.set()
        watcher.cancel()
    if response is None:
        return web.Response(status=500, text="the MCP app sent no answer")
    return response


def mount(
    app: web.Application,
    make: Callable[[], tuple[Asgi, Callable[[], Any]]],
    path: str = "/mcp",
) -> None:
    """Serve make()'s ASGI app at path; make also gives the async context that keeps its
    session manager running, entered on startup and left on cleanup."""
    held: dict[str, Asgi] = {}

    async def lifespan(_: web.Application) -> AsyncIterator[None]:
        asgi, running = make()
        async with running():
            held["app"] = asgi
            yield
            held.clear()

    async def handler(request: web.Request) -> web.StreamResponse:
        asgi = held.get("app")
        if asgi is None:
            raise web.HTTPServiceUnavailable(reason="the MCP server is not running")
        return await serve_asgi(asgi, request)

    app.cleanup_ctx.append(lifespan)
    for method in ("GET", "POST", "DELETE"):
        app.router.add_route(method, path, handler)
