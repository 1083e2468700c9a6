"""Asset downloads.

A separate session that never carries credentials or cookies and follows redirects
itself (so no header can leak across origins); bytes stream to `<dest>.part` and are
renamed into place only when the size matches the asset's byte_size. A truncated
transfer resumes with Range when the server honours it; an expired or refused URL is
refreshed through GET /assets/{id} and tried again. Signed URLs are secrets: logs name
the asset id, never the URL."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
from yarl import URL

from companion.api.errors import DownloadError
from companion.api.schema import Asset

log = logging.getLogger("companion.api.download")

CHUNK = 1 << 20
MAX_REDIRECTS = 5
MAX_ATTEMPTS = 6

Refresh = Callable[[str], Awaitable[Asset]]


class _Expired(Exception):
    """The signed URL was refused (expired, altered, or gone)."""


class Downloader:
    def __init__(
        self,
        refresh: Refresh,
        *,
        connect_timeout: float = 10.0,
        read_timeout: float = 60.0,
        proxy: bool = True,
    ) -> None:
        self._refresh = refresh
        self._proxy = proxy
        # Told (file name, bytes so far, bytes in all) as bytes arrive: a progress bar.
        self.on_bytes: Callable[[str, int, int], None] | None = None
        self._timeout = aiohttp.ClientTimeout(sock_connect=connect_timeout, sock_read=read_timeout)
        self._session: aiohttp.ClientSession | None = None

    async def _session_(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            # Its own session: the API session's Authorization header can never reach here.
            self._session = aiohttp.ClientSession(
                timeout=self._timeout,
                cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=False,
                trust_env=self._proxy,  # the download origin is remote too
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def download(self, asset: Asset, dest: Path) -> Path:
        partial = dest.with_name(dest.name + ".part")
        dest.parent.mkdir(parents=True, exist_ok=True)
        partial.unlink(missing_ok=True)
        current = asset
        failures = 0
        while True:
            try:
                await self._fetch(current, partial)
            except _Expired:
                failures += 1
                log.info("download of asset %s: URL refused or expired; refreshing it", asset.id)
                current = await self._refresh(str(asset.id))
            except (aiohttp.ClientError, TimeoutError, ConnectionError) as exc:
                failures += 1
                log.info(
                    "download of asset %s interrupted (%s) at %d bytes; resuming",
                    asset.id,
                    type(exc).__name__,
                    partial.stat().st_size if partial.exists() else 0,
                )
                await asyncio.sleep(min(4.0, 0.25 * 2**failures))
            else:
                size = partial.stat().st_size
                if size == asset.byte_size:
                    partial.replace(dest)
                    return dest
                failures += 1
                log.info(
                    "download of asset %s has %d of %d bytes; starting again",
                    asset.id,
                    size,
                    asset.byte_size,
                )
                partial.unlink()
            if failures >= MAX_ATTEMPTS:
                partial.unlink(missing_ok=True)
                raise DownloadError(
                    f"asset {asset.id}: could not download {asset.byte_size} "
                    f"bytes after {MAX_ATTEMPTS} attempts"
                )

    async def _fetch(self, asset: Asset, partial: Path) -> None:
        session = await self._session_()
        have = partial.stat().st_size if partial.exists() else 0
        url = URL(asset.download_url, encoded=True)
        headers = {"Range": f"bytes={have}-"} if have else {}
        for _ in range(MAX_REDIRECTS + 1):
            async with session.get(url, headers=headers, allow_redirects=False) as response:
                if response.status in (301, 302, 303, 307, 308):
                    url = url.join(URL(response.headers.get("Location", ""), encoded=True))
                    continue
                if response.status in (401, 403, 404, 410):
                    raise _Expired()
                if response.status == 416 and have >= asset.byte_size:
                    return
                if response.status not in (200, 206):
                    raise aiohttp.ClientResponseError(
                        response.request_info, (), status=response.status
                    )
                resumed = response.status == 206 and have > 0
                with partial.open("ab" if resumed else "wb") as sink:
                    async for chunk in response.content.iter_chunked(CHUNK):
                        sink.write(chunk)
                        if sink.tell() > asset.byte_size:
                            raise DownloadError(f"asset {asset.id}: more bytes than byte_size")
                        if self.on_bytes is not None:
                            name = partial.name.removesuffix(".part")
                            self.on_bytes(name, sink.tell(), asset.byte_size)
                return
        raise DownloadError(f"asset {asset.id}: too many redirects")
