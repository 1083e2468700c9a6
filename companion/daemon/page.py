"""The status page: jobs, progress, credits and a GIF preview of each finished animation,
for people who would rather look than read.

It is opened once through `/?token=...` (the link `companion status` prints), which
sets an HttpOnly, SameSite=Strict cookie and redirects to `/` so the token leaves the
address bar and the history. The page then reads the API with that cookie (GET only)
every two seconds."""

from __future__ import annotations

import hmac
import io
import json
import zipfile
from importlib import resources
from pathlib import Path

from aiohttp import web
from PIL import Image

from companion.daemon.security import COOKIE
from companion.store import Store

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


def preview_gif(store: Store, job_id: str, cache: Path) -> Path | None:
    """A GIF of a finished job, from its installed outputs: its GIF if it has one, else
    built from the spritesheet and its JSON, else from the frames zip."""
    rows = {a.format: a for a in store.assets(job_id) if a.installed_path}
    cached = cache / f"{job_id}.gif"
    if "gif" in rows:
        return Path(rows["gif"].installed_path or "")
    if cached.exists():
        return cached
    frames: list[Image.Image] = []
    durations: list[int] = []
    if "spritesheet" in rows and "spritesheet_json" in rows:
        sheet = Image.open(rows["spritesheet"].installed_path or "").convert("RGBA")
        layout = json.loads(Path(rows["spritesheet_json"].installed_path or "").read_text())
        for entry in layout["frames"].values():
            box = entry["frame"]
            frames.append(
                sheet.crop((box["x"], box["y"], box["x"] + box["w"], box["y"] + box["h"]))
            )
            durations.append(int(entry.get("duration", 100)))
    elif "frames_zip" in rows:
        with zipfile.ZipFile(rows["frames_zip"].installed_path or "") as archive:
            for name in sorted(archive.namelist()):
                frames.append(Image.open(io.BytesIO(archive.read(name))).convert("RGBA"))
                durations.append(100)
    if not frames:
        return None
    thumbs = [frame.copy() for frame in frames]
    for thumb in thumbs:
        thumb.thumbnail((128, 128))
    cache.mkdir(parents=True, exist_ok=True)
    thumbs[0].save(
        cached, save_all=True, append_images=thumbs[1:], duration=durations, loop=0, disposal=2
    )
    return cached
