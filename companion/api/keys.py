"""Idempotency keys: unguessable, within the spec's 8 to 200 characters, and readable
in logs. The caller persists a key before the request is sent and reuses it on retry."""

from __future__ import annotations

import re
import secrets

from companion.api.schema.requests import IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_MIN

_SAFE = re.compile(r"[^A-Za-z0-9_-]+")


def new_idempotency_key(purpose: str = "create") -> str:
    """`<purpose>-<32 random hex>`, e.g. `animation-9f2c...`."""
    prefix = _SAFE.sub("-", purpose).strip("-")[:40] or "create"
    key = f"{prefix}-{secrets.token_hex(16)}"
    assert IDEMPOTENCY_KEY_MIN <= len(key) <= IDEMPOTENCY_KEY_MAX
    return key
