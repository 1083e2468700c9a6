"""Image inputs given by URL, fetched as the service does: public addresses only (every
hop's host resolved and checked), redirects checked, no cookies, bounded size and time."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

import aiohttp
from yarl import URL

from companion.api.schema import ErrorCode
from companion.api.schema.images import check_image_url_shape, is_blocked_address
from companion.sandbox.errors import ApiError, invalid
from companion.sandbox.inputs.images import MAX_SIDE, MAX_UPLOAD_BYTES, CheckedImage, check_image

URL_FETCH_TIMEOUT = 10.0


async def fetch_image(url: str, param: str, max_side: int = MAX_SIDE) -> CheckedImage:
    """Fetch a URL input as the service does: public addresses only, redirects checked,
    no cookies, bounded size."""
    current = url
    timeout = aiohttp.ClientTimeout(total=URL_FETCH_TIMEOUT)
    async with aiohttp.ClientSession(
        timeout=timeout, cookie_jar=aiohttp.DummyCookieJar()
    ) as session:
        for _ in range(4):
            await _check_resolves_public(current, param)
            try:
                async with session.get(current, allow_redirects=False) as response:
                    if response.status in (301, 302, 303, 307, 308):
                        target = str(response.url.join(URL(response.headers.get("Location", ""))))
                        try:
                            check_image_url_shape(target)
                        except ValueError as exc:
                            raise invalid(
                                f"the URL redirects somewhere not allowed: {exc}", param
                            ) from exc
                        current = target
                        continue
                    if response.status != 200:
                        raise ApiError(
                            ErrorCode.INVALID_IMAGE,
                            f"fetching the URL gave HTTP {response.status}",
                            param=param,
                        )
                    data = await response.content.read(MAX_UPLOAD_BYTES + 1)
            except (aiohttp.ClientError, TimeoutError) as exc:
                raise ApiError(
                    ErrorCode.INVALID_IMAGE, "the URL could not be fetched", param=param
                ) from exc
            if len(data) > MAX_UPLOAD_BYTES:
                raise ApiError(
                    ErrorCode.PAYLOAD_TOO_LARGE, "the image at the URL is too large", param=param
                )
            return check_image(data, param, max_side=max_side)
    raise invalid("the URL redirects too many times", param)


async def _check_resolves_public(url: str, param: str) -> None:
    host = urlsplit(url).hostname or ""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, 443, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ApiError(
            ErrorCode.INVALID_IMAGE, f"the URL's host {host!r} does not resolve", param=param
        ) from exc
    for info in infos:
        if is_blocked_address(ipaddress.ip_address(info[4][0])):
            raise invalid("the URL resolves to a private, loopback or link-local address", param)
