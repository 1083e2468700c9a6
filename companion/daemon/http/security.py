"""Who may talk to the daemon: this machine, this daemon's token, no web page.

The daemon holds a paid key on a machine that also runs a browser, so every request
must come from a loopback address, name the daemon by Host (localhost or 127.0.0.1 with
its port: a DNS-rebinding page names its own host), carry no Origin unless allow-listed
(browsers send one from every page), and carry the token from daemon.json. Bodies are
capped. Every refusal is a JSON 4xx."""

from __future__ import annotations

import hmac
import ipaddress
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

log = logging.getLogger("companion.daemon")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
MAX_BODY = 16 * 2**20  # an inline image of the spec's 10 MiB, as Base64, with room
# The page checks its own one-time token or cookie; health tells nothing.
OPEN_PATHS = frozenset({"/api/v1/health", "/"})
COOKIE = "companion_token"


def error(status: int, code: str, message: str) -> web.Response:
    return web.json_response({"error": {"code": code, "message": message}}, status=status)


def guard(
    token: str,
    port_of: Callable[[], int],
    allowed_origins: frozenset[str] = frozenset(),
    session: str | None = None,
) -> Callable[..., Awaitable[web.StreamResponse]]:
    """session: the status page's cookie value (page.py), never the token itself."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        peer = request.transport.get_extra_info("peername") if request.transport else None
        try:
            loopback = peer is not None and ipaddress.ip_address(peer[0]).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            return error(403, "NOT_LOOPBACK", "the daemon answers this machine only")
        port = port_of()
        if request.headers.get("Host", "") not in {f"localhost:{port}", f"127.0.0.1:{port}"}:
            return error(421, "BAD_HOST", "use http://127.0.0.1:PORT or http://localhost:PORT")
        origin = request.headers.get("Origin")
        own = {f"http://127.0.0.1:{port}", f"http://localhost:{port}"}  # the status page
        if origin is not None and origin not in allowed_origins and origin not in own:
            return error(403, "FOREIGN_ORIGIN", "requests from web pages are refused")
        if request.path not in OPEN_PATHS and not _authorised(request, token, session):
            return error(401, "BAD_TOKEN", "send Authorization: Bearer <token from daemon.json>")
        if request.content_length is not None and request.content_length > MAX_BODY:
            return error(413, "TOO_LARGE", f"bodies are at most {MAX_BODY} bytes")
        response = await handler(request)
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    return middleware


def _authorised(request: web.Request, token: str, session: str | None) -> bool:
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(given.strip(), token):
        return True
    # The status page: a cookie set from the one-time link `companion status` prints;
    # SameSite=Strict and the Origin rule keep other pages from using it.
    cookie = request.cookies.get(COOKIE, "")
    return (
        request.method == "GET"
        and session is not None
        and bool(cookie)
        and hmac.compare_digest(cookie, session)
    )
