"""List cursors: the position of the last task listed, signed with the state's secret so
that only a cursor this service issued (for this kind of task) is taken back."""

from __future__ import annotations

import base64
import hashlib
import hmac

from companion.sandbox.errors import invalid


def _signature(secret: str, seq: int, kind: str) -> str:
    message = f"cursor:{kind}:{seq}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:16]


def make_cursor(secret: str, seq: int, kind: str) -> str:
    raw = f"{seq}.{_signature(secret, seq, kind)}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def read_cursor(secret: str, cursor: str | None, kind: str) -> int | None:
    """The seq a cursor names; None for no cursor (the first page)."""
    if cursor is None or cursor in ("", "null"):
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        seq_text, signature = raw.split(".", 1)
        seq = int(seq_text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise invalid("cursor is not one this service issued", "cursor") from exc
    if not hmac.compare_digest(signature, _signature(secret, seq, kind)):
        raise invalid("cursor is not one this service issued", "cursor")
    return seq
