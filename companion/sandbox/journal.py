"""An optional record of every request the sandbox saw, for tests that check a client's
manners: pacing, Retry-After, idempotency keys, credentials on downloads. It holds
whether an Authorization header was present, never its value."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field


@dataclass
class Entry:
    origin: str  # "api" or "storage"
    method: str
    path: str
    arrived: float = field(default_factory=time.monotonic)
    answered: float | None = None
    status: int | None = None  # None: the connection was dropped
    retry_after: int | None = None
    authorization: bool = False
    idempotency_key: str | None = None
    body_sha256: str | None = None
    error_code: str | None = None
    accept_encoding: str | None = None


class Journal:
    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def open(
        self, origin: str, method: str, path: str, headers: dict[str, str], body: bytes | None
    ) -> Entry:
        entry = Entry(
            origin,
            method,
            path,
            authorization="Authorization" in headers,
            idempotency_key=headers.get("Idempotency-Key"),
            accept_encoding=headers.get("Accept-Encoding"),
            body_sha256=hashlib.sha256(body).hexdigest() if body else None,
        )
        self.entries.append(entry)
        return entry

    @staticmethod
    def close(
        entry: Entry, status: int | None, retry_after: str | None, error_code: str | None = None
    ) -> None:
        entry.answered = time.monotonic()
        entry.status = status
        entry.retry_after = int(retry_after) if retry_after and retry_after.isdigit() else None
        entry.error_code = error_code
