"""The status page: jobs, progress, credits and a GIF preview of each finished animation
(gif_preview.py), for people who would rather look than read.

It is opened once through `/?token=...` (the link `companion status` prints), which
sets an HttpOnly, SameSite=Strict cookie and redirects to `/` so the token leaves the
address bar and the history. The page then reads the API with that cookie (GET only)
every two seconds."""

from __future__ import annotations

import hmac
from importlib import resources

from aiohttp import web

from companion.daemon.security import COOKIE

TOKEN = web.AppKey("token", str)
PAGE = (resources.files("companion.daemon") / "status.html").read_text(encoding="utf-8")


async def page(request: web.Request) -> web.StreamResponse:
    token = request.app[TOKEN]
    given = request.query.get("token")
    if given is not None:
        if not hmac.compare_digest(given, token):
            return web.json_response(
                {"error": {"code": "BAD_TOKEN", "message": "the link is not this daemon's"}},
                status=401,
            )
        response = web.Response(status=303, headers={"Location": "/"})
        response.set_cookie(COOKIE, token, httponly=True, samesite="Strict", path="/")
        return response
    if not hmac.compare_digest(request.cookies.get(COOKIE, ""), token):
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
