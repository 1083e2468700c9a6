"""Asset bytes and their signed download URLs.

A download URL points at GET /assets/{id}/content on the API origin, signed and with an
expiry; that endpoint redirects to a second origin (another port) that serves the bytes,
as real storage does. Both refuse a request that carries an Authorization header, so a
client that leaks its key to download URLs fails loudly. Range requests are served, so
clients can resume."""

from __future__ import annotations

import hashlib
import hmac
import math
import shutil
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from aiohttp import web

from companion.sandbox.faults import Faults
from companion.sandbox.journal import Journal
from companion.sandbox.state import AssetRecord, State

REDIRECT_SECONDS = 60


def _expiry(seconds: int) -> int:
    # Whole seconds rounded up: truncating would let a URL minted late in a second live
    # for less than the seconds it promises (for a 1 s URL, next to nothing).
    return math.ceil(time.time()) + seconds


class Storage:
    def __init__(self, root: Path, state: State, faults: Faults, url_seconds: int) -> None:
        self.root = root
        self.state = state
        self.faults = faults
        self.url_seconds = url_seconds
        self.api_base = ""
        self.storage_base = ""
        self.journal: Journal | None = None
        root.mkdir(parents=True, exist_ok=True)

    def new_path(self, suffix: str) -> Path:
        return self.root / f"{uuid.uuid4().hex}{suffix}"

    def adopt(self, source: Path) -> Path:
        target = self.new_path(source.suffix if source.suffix else "")
        target = target.with_name(f"{target.stem}-{source.name}")
        shutil.move(str(source), target)
        return target

    def _sign(self, asset_id: str, expires: int, origin: str) -> str:
        message = f"{origin}:{asset_id}:{expires}".encode()
        return hmac.new(self.state.secret.encode(), message, hashlib.sha256).hexdigest()

    def verify(
        self, asset_id: str, expires: str | None, signature: str | None, origin: str
    ) -> bool:
        if not expires or not signature or not expires.isdigit():
            return False
        if int(expires) < time.time():
            return False
        return hmac.compare_digest(self._sign(asset_id, int(expires), origin), signature)

    def download_url(self, asset: AssetRecord) -> tuple[str, datetime]:
        expires = _expiry(self.url_seconds)
        signature = self._sign(asset.id, expires, "api")
        url = f"{self.api_base}/assets/{asset.id}/content?expires={expires}&signature={signature}"
        return url, datetime.fromtimestamp(expires, UTC)

    def storage_url(self, asset: AssetRecord) -> str:
        expires = _expiry(REDIRECT_SECONDS)
        signature = self._sign(asset.id, expires, "storage")
        return f"{self.storage_base}/blobs/{asset.id}?expires={expires}&signature={signature}"

    def storage_app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/blobs/{asset_id}", self._serve_blob)
        return app

    async def _serve_blob(self, request: web.Request) -> web.StreamResponse:
        entry = (
            self.journal.open("storage", request.method, request.path, dict(request.headers), None)
            if self.journal
            else None
        )
        try:
            response = await self._blob(request)
        except BaseException:
            if entry is not None:
                Journal.close(entry, None, None)
            raise
        if entry is not None:
            Journal.close(entry, response.status, None)
        return response

    async def _blob(self, request: web.Request) -> web.StreamResponse:
        if "Authorization" in request.headers:
            return _refuse_credentials()
        asset = self.state.assets.get(request.match_info["asset_id"])
        if asset is None or not self.verify(
            asset.id, request.query.get("expires"), request.query.get("signature"), "storage"
        ):
            return web.json_response(
                {
                    "error": {
                        "code": "NOT_FOUND",
                        "message": "signature invalid or expired",
                        "param": None,
                        "details": {},
                        "request_id": None,
                        "retryable": False,
                    }
                },
                status=404,
            )
        path = Path(asset.path)
        if self.faults.truncate() and "Range" not in request.headers:
            return await _truncated(request, path, asset.mime_type)
        return web.FileResponse(
            path, headers={"Content-Type": asset.mime_type, "Cache-Control": "private, no-store"}
        )


def _refuse_credentials() -> web.Response:
    return web.json_response(
        {
            "error": {
                "code": "INVALID_REQUEST",
                "message": "download URLs are signed; send no Authorization header",
                "param": "Authorization",
                "details": {},
                "request_id": None,
                "retryable": False,
            }
        },
        status=400,
    )


async def _truncated(request: web.Request, path: Path, mime: str) -> web.StreamResponse:
    data = path.read_bytes()
    response = web.StreamResponse(
        headers={"Content-Type": mime, "Content-Length": str(len(data)), "Accept-Ranges": "bytes"}
    )
    await response.prepare(request)
    await response.write(data[: len(data) // 2])
    if request.transport is not None:
        request.transport.abort()
    return response
