"""Asset bytes and their signed download URLs.

A download URL points at GET /assets/{id}/content on the API origin, signed and with an
expiry; that endpoint redirects to a second origin (another port) that serves the bytes,
as real storage does. Both refuse a request that carries an Authorization header, so a
client that leaks its key to download URLs fails loudly. Range requests are served, so
clients can resume.

The spec shows nothing of these responses (4.7), so the latitude face answers them
otherwise: gzip-encoded whatever the client accepts (`Face.gzip_downloads`), and the first
fetch of each asset refused (`Face.first_download_refused`), its URL refused for good."""

from __future__ import annotations

import gzip
import hashlib
import hmac
import math
import shutil
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from aiohttp import web

from companion.sandbox.face import Face
from companion.sandbox.faults import Faults
from companion.sandbox.journal import Journal
from companion.sandbox.state import AssetRecord, State

REDIRECT_SECONDS = 60


def _expiry(seconds: int) -> int:
    # Whole seconds rounded up: truncating would let a URL minted late in a second live
    # for less than the seconds it promises (for a 1 s URL, next to nothing).
    return math.ceil(time.time()) + seconds


class Storage:
    def __init__(
        self, root: Path, state: State, faults: Faults, url_seconds: int, face: Face
    ) -> None:
        self.root = root
        self.state = state
        self.faults = faults
        self.url_seconds = url_seconds
        self.face = face
        self._refused: set[str] = set()  # assets whose first fetch was refused
        self._burnt: set[str] = set()  # and whose URLs stay refused until a fresh one
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

    def refusal(self, asset_id: str) -> web.Response | None:
        """The latitude face's refusal of a signed URL: the first fetch of each asset, and
        every later fetch until a fresh URL is handed out (GET /assets/{id}, or a task
        read), so a client that retries the same URL blindly never gets the bytes."""
        status = self.face.first_download_refused
        if status is None or (asset_id in self._refused and asset_id not in self._burnt):
            return None
        self._refused.add(asset_id)
        self._burnt.add(asset_id)
        # A storage front's own answer, not the API's envelope: the spec shows none.
        headers = {"Cache-Control": "no-store"}
        if status == 429:
            headers["Retry-After"] = "1"
        return web.Response(status=status, text="signed URL refused", headers=headers)

    def download_url(self, asset: AssetRecord) -> tuple[str, datetime]:
        # A URL minted in the same second is the same URL: freshness is told here.
        self._burnt.discard(asset.id)
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
        if self.face.gzip_downloads:
            return await _gzipped(request, path, asset.mime_type, self.faults.truncate())
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


async def _gzipped(
    request: web.Request, path: Path, mime: str, truncate: bool
) -> web.StreamResponse:
    """The bytes gzip-encoded whatever Accept-Encoding says: a real server may do so, the
    response of a signed download being not shown (spec 4.7). A Range is a range of the
    encoded bytes (206), as HTTP has it, so it cannot be appended to decoded ones."""
    data = gzip.compress(path.read_bytes(), mtime=0)
    headers = {
        "Content-Type": mime,
        "Content-Encoding": "gzip",
        "Vary": "Accept-Encoding",
        "Cache-Control": "private, no-store",
        "Accept-Ranges": "bytes",
    }
    start = _range_start(request.headers.get("Range"))
    if start is not None and start < len(data):
        headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        return web.Response(status=206, body=data[start:], headers=headers)
    if truncate:
        response = web.StreamResponse(headers={**headers, "Content-Length": str(len(data))})
        await response.prepare(request)
        await response.write(data[: len(data) // 2])
        if request.transport is not None:
            request.transport.abort()
        return response
    return web.Response(body=data, headers=headers)


def _range_start(header: str | None) -> int | None:
    """The first byte of an open `bytes=N-` range (the only form clients resume with)."""
    if header is None or not header.startswith("bytes="):
        return None
    first, _, last = header.removeprefix("bytes=").partition("-")
    return int(first) if first.isdigit() and not last else None
