"""The status page: jobs, progress, credits and a GIF preview of each finished animation
(gif_preview.py), for people who would rather look than read.

It is opened through `/?code=...`, the link `companion status` prints. The code is not
the daemon's token: the command asks the daemon for it (POST /api/v1/status-link, with
the token), it works once and for a minute, and the daemon trades it for an HttpOnly,
SameSite=Strict session cookie, then redirects to `/` so nothing reusable stays in the
address bar or the history. The page then reads the API with that cookie (GET only)
every two seconds."""

from __future__ import annotations

import hmac
import secrets
import time
from importlib import resources

from aiohttp import web

from companion.daemon.http.security import COOKIE
from companion.daemon.schema.requests import StatusLinkOut

TOKEN = web.AppKey("token", str)
PAGE = (resources.files("companion.daemon") / "status.html").read_text(encoding="utf-8")
CODE_SECONDS = 60.0
MAX_CODES = 32


class LinkCodes:
    """Single-use, short-lived codes for the status link, and the session they open."""

    def __init__(self) -> None:
        self.session = secrets.token_urlsafe(32)  # the cookie's value, never the token
        self._codes: dict[str, float] = {}

    def issue(self) -> str:
        now = time.monotonic()
        self._codes = {c: t for c, t in self._codes.items() if t > now}
        while len(self._codes) >= MAX_CODES:  # the oldest goes first
            del self._codes[min(self._codes, key=self._codes.__getitem__)]
        code = secrets.token_urlsafe(24)
        self._codes[code] = now + CODE_SECONDS
        return code

    def redeem(self, given: str) -> bool:
        """True once for a code issued less than CODE_SECONDS ago."""
        for code in list(self._codes):
            if hmac.compare_digest(code, given):
                expires = self._codes.pop(code)
                return expires > time.monotonic()
        return False


CODES = web.AppKey("codes", LinkCodes)


async def status_link(request: web.Request) -> web.Response:
    """A fresh one-time link to the status page (the caller sent the daemon's token)."""
    code = request.app[CODES].issue()
    host = request.headers.get("Host", "127.0.0.1")
    out = StatusLinkOut(url=f"http://{host}/?code={code}", expires_in=int(CODE_SECONDS))
    return web.json_response(out.model_dump(), status=201)


async def page(request: web.Request) -> web.StreamResponse:
    codes = request.app[CODES]
    given = request.query.get("code")
    if given is not None:
        if not codes.redeem(given):
            return web.Response(
                status=401,
                content_type="text/plain",
                text="This link was used already or is over a minute old; "
                "run `companion status` for a new one.\n",
            )
        response = web.Response(status=303, headers={"Location": "/"})
        response.set_cookie(COOKIE, codes.session, httponly=True, samesite="Strict", path="/")
        return response
    if not hmac.compare_digest(request.cookies.get(COOKIE, ""), codes.session):
        return web.Response(
            status=401, content_type="text/plain", text="Open the link `companion status` prints.\n"
        )
    return web.Response(
        text=PAGE,
        content_type="text/html",
        headers={
            "Content-Security-Policy": "default-src 'self'; "
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
            "img-src 'self'; connect-src 'self'",
            "X-Frame-Options": "DENY",
        },
    )
