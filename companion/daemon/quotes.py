"""A quote belongs to exactly what it priced: its id is a digest of the request's settings
and the image's bytes, so animate can refuse a body that changed since (nothing spent)."""

from __future__ import annotations

import hashlib
import json

from pydantic import BaseModel

# Replacing a file the quote listed changes what is kept aside, not the price.
FIELDS_NOT_PRICED = {"quote_id", "approve", "replace", "again"}


def quote_id(body: BaseModel, image_sha256: str) -> str:
    """Digest of the body as sent (minus the quote id itself) and of the image it names,
    by the SHA-256 of its bytes (the picture changed on disk: another quote)."""
    settings = body.model_dump(mode="json", exclude=FIELDS_NOT_PRICED)
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    digest.update(image_sha256.encode())
    return "q_" + digest.hexdigest()[:40]
