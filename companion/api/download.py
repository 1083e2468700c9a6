"""Asset downloads.

A separate session that never carries credentials or cookies and follows redirects
itself (so no header can leak across origins); bytes stream to `<dest>.part` and are
renamed into place only when the size matches the asset's byte_size.

The response of a signed download is not shown (spec 4.7), so it is taken as it comes:
- `Accept-Encoding: identity` is asked, and an answer gzip- or deflate-encoded anyway is
  decoded as it streams (content_encoding.py); the decoded bytes are the asset.
- A truncated transfer resumes with Range when the server honours it with identity
  bytes; after an encoded answer, or an encoded answer to a Range, the file is fetched
  again whole (encoded offsets are not decoded ones).
- A URL refused (400, 401, 403, 404, 410, 429) or expired is refreshed through
  GET /assets/{id}, after a 429's Retry-After; a 5xx is tried again after its
  Retry-After or a backoff. Attempts and waits are bounded.
Signed URLs are secrets: logs and errors name the asset id, never the URL."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
from yarl import URL

from companion.api.content_encoding import Decoder, is_identity
from companion.api.errors import ContentEncodingError, DownloadError
from companion.api.schema import Asset
from companion.api.transport import parse_retry_after

log = logging.getLogger("companion.api.download")

CHUNK = 1 << 20
MAX_REDIRECTS = 5
MAX_ATTEMPTS = 6
MAX_WAIT = 60.0  # seconds: the longest Retry-After waited for; longer, the download fails
REFUSED = (400, 401, 403, 404, 410, 429)  # the URL itself is refused: get a fresh one
EXPIRY_MARGIN = 2.0  # seconds before download_expires_at a URL is taken as expired

Refresh = Callable[[str], Awaitable[Asset]]


# The three below are control flow of one download, raised and caught in this module
# only, so they stay here, outside the api tree: none ever reaches a caller.
class _Refused(Exception):
    """The signed URL was refused (expired, altered, gone, or rate limited)."""

    def __init__(self, status: int, retry_after: float | None) -> None:
        super().__init__(status)
        self.status = status
        self.retry_after = retry_after


class _Unavailable(Exception):
    """A server error: the same URL may serve later."""

    def __init__(self, status: int, retry_after: float | None) -> None:
        super().__init__(status)
        self.status = status
        self.retry_after = retry_after


class _Restart(Exception):
    """What is in `.part` cannot be resumed (an encoded answer to a Range): start over."""


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
        self._told: dict[Path, str] = {}  # what on_bytes names a download by (its file)
        self._timeout = aiohttp.ClientTimeout(sock_connect=connect_timeout, sock_read=read_timeout)
        self._session: aiohttp.ClientSession | None = None

    async def _session_(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            # Its own session: the API session's Authorization header can never reach here.
            self._session = aiohttp.ClientSession(
                timeout=self._timeout,
                cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=False,  # decoded here, bounded (content_encoding.py)
                trust_env=self._proxy,  # the download origin is remote too
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def download(self, asset: Asset, dest: Path, label: str | None = None) -> Path:
        """asset into dest, told to on_bytes as label (default: dest's name)."""
        partial = dest.with_name(dest.name + ".part")
        self._told[partial] = label or dest.name
        try:
            return await self._download(asset, dest, partial)
        finally:
            self._told.pop(partial, None)

    async def _download(self, asset: Asset, dest: Path, partial: Path) -> Path:
        dest.parent.mkdir(parents=True, exist_ok=True)
        partial.unlink(missing_ok=True)
        current = asset
        if _expired(current):
            log.info("download of asset %s: its URL has expired; refreshing it", asset.id)
            current = await self._refresh(str(asset.id))
        failures = 0
        while True:
            try:
                await self._fetch(current, partial)
            except _Refused as refused:
                failures += 1
                wait = refused.retry_after if refused.status == 429 else None
                if wait is None and refused.status == 429:
                    wait = _backoff(failures)
                log.info(
                    "download of asset %s: URL refused (%d); refreshing it%s",
                    asset.id,
                    refused.status,
                    f" in {wait:.1f} s" if wait else "",
                )
                await self._wait(asset, wait or 0.0, failures)
                current = await self._refresh(str(asset.id))
            except _Unavailable as unavailable:
                failures += 1
                wait = unavailable.retry_after
                log.info(
                    "download of asset %s: answered %d; trying again",
                    asset.id,
                    unavailable.status,
                )
                await self._wait(asset, _backoff(failures) if wait is None else wait, failures)
            except _Restart:
                failures += 1
                log.info(
                    "download of asset %s: cannot resume an encoded answer; starting again",
                    asset.id,
                )
                partial.unlink(missing_ok=True)
            except (
                aiohttp.ClientError,
                TimeoutError,
                ConnectionError,
                ContentEncodingError,
            ) as exc:
                failures += 1
                log.info(
                    "download of asset %s interrupted (%s) at %d bytes; resuming",
                    asset.id,
                    type(exc).__name__,
                    partial.stat().st_size if partial.exists() else 0,
                )
                await self._wait(asset, _backoff(failures), failures)
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
                    f"bytes after {MAX_ATTEMPTS} attempts; try again later"
                )

    async def _wait(self, asset: Asset, seconds: float, failures: int) -> None:
        if seconds > MAX_WAIT:
            raise DownloadError(
                f"asset {asset.id}: the download server asks to wait {seconds:.0f} s "
                f"(over {MAX_WAIT:.0f} s); try again later"
            )
        if seconds > 0 and failures < MAX_ATTEMPTS:
            await asyncio.sleep(seconds)

    async def _fetch(self, asset: Asset, partial: Path) -> None:
        session = await self._session_()
        have = partial.stat().st_size if partial.exists() else 0
        url = URL(asset.download_url, encoded=True)
        headers = {"Accept-Encoding": "identity"}
        if have:
            headers["Range"] = f"bytes={have}-"
        for _ in range(MAX_REDIRECTS + 1):
            async with session.get(url, headers=headers, allow_redirects=False) as response:
                if response.status in (301, 302, 303, 307, 308):
                    url = url.join(URL(response.headers.get("Location", ""), encoded=True))
                    continue
                retry_after = parse_retry_after(response.headers.get("Retry-After"))
                if response.status == 416:
                    if have >= asset.byte_size:
                        return
                    raise _Restart()
                if response.status in REFUSED:
                    raise _Refused(response.status, retry_after)
                if response.status not in (200, 206):
                    raise _Unavailable(response.status, retry_after)
                await self._take(asset, response, partial, have)
                return
        raise DownloadError(f"asset {asset.id}: too many redirects")

    async def _take(
        self, asset: Asset, response: aiohttp.ClientResponse, partial: Path, have: int
    ) -> None:
        encoding = response.headers.get("Content-Encoding")
        encoded = not is_identity(encoding)
        if encoded and response.status == 206:
            raise _Restart()  # a range of the encoded bytes: useless to the decoded ones
        decoder = Decoder(encoding)
        resumed = response.status == 206 and have > 0
        name = self._told.get(partial) or partial.name.removesuffix(".part")
        try:
            with partial.open("ab" if resumed else "wb") as sink:
                async for chunk in response.content.iter_chunked(CHUNK):
                    for piece in decoder.feed(chunk):
                        sink.write(piece)
                        if sink.tell() > asset.byte_size:
                            raise DownloadError(f"asset {asset.id}: more bytes than byte_size")
                        if self.on_bytes is not None:
                            self.on_bytes(name, sink.tell(), asset.byte_size)
                decoder.finish()
        except BaseException:
            if encoded:  # decoded bytes cannot be resumed with a Range of encoded ones
                partial.unlink(missing_ok=True)
            raise


def _expired(asset: Asset) -> bool:
    expires = asset.download_expires_at
    if expires.tzinfo is None:
        expires = expires.replace(tzinfo=UTC)
    return expires.timestamp() - EXPIRY_MARGIN <= datetime.now(UTC).timestamp()


def _backoff(failures: int) -> float:
    return float(min(4.0, 0.25 * 2**failures))
