"""A small synchronous HTTP client for tests: no automatic redirects, no hidden headers."""

from __future__ import annotations

import http.client
import io
import json
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from PIL import Image


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def error(self) -> dict[str, Any]:
        return self.json["error"]


def request(
    method: str,
    url: str,
    *,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 60,
) -> Reply:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return Reply(
            response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        )
    finally:
        connection.close()


class Api:
    def __init__(self, base_url: str, key: str | None = "sk-test") -> None:
        self.base_url = base_url
        self.key = key

    def _headers(self, extra: dict[str, str] | None, key: str | None) -> dict[str, str]:
        headers = dict(extra or {})
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def get(
        self, path: str, *, key: str | None = "default", headers: dict[str, str] | None = None
    ) -> Reply:
        return request(
            "GET",
            self.base_url + path,
            headers=self._headers(headers, self.key if key == "default" else key),
        )

    def post(
        self,
        path: str,
        payload: Any = None,
        *,
        key: str | None = "default",
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
        content_type: str = "application/json",
    ) -> Reply:
        data = (
            raw if raw is not None else (None if payload is None else json.dumps(payload).encode())
        )
        all_headers = self._headers(headers, self.key if key == "default" else key)
        if data is not None:
            all_headers.setdefault("Content-Type", content_type)
        return request("POST", self.base_url + path, body=data, headers=all_headers)

    def create(
        self, path: str, payload: Any, idempotency_key: str | None = None, **kw: Any
    ) -> Reply:
        headers = {"Idempotency-Key": idempotency_key or f"test-{uuid.uuid4()}"}
        return self.post(path, payload, headers=headers, **kw)

    def upload(
        self,
        data: bytes,
        *,
        filename: str = "frame.png",
        field: str = "file",
        key: str | None = "default",
    ) -> Reply:
        boundary = uuid.uuid4().hex
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; '
                f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
            ).encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        return self.post(
            "/files", raw=body, key=key, content_type=f"multipart/form-data; boundary={boundary}"
        )


def png_bytes(
    width: int = 64,
    height: int = 64,
    colour: tuple[int, ...] = (200, 40, 40, 255),
    fmt: str = "PNG",
) -> bytes:
    buffer = io.BytesIO()
    mode = "RGBA" if fmt == "PNG" else "RGB"
    Image.new(mode, (width, height), colour[: len(mode)]).save(buffer, fmt)
    return buffer.getvalue()
