"""A quote belongs to exactly what it priced: its id is a digest of the request's settings
and the image's bytes, so animate can refuse a body that changed since (nothing spent)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel

# Replacing a file the quote listed changes what is kept aside, not the price.
FIELDS_NOT_PRICED = {"quote_id", "approve", "replace", "again"}


def quote_id(body: BaseModel, image: Path) -> str:
    """Digest of the body as sent (minus the quote id itself) and the image it names."""
    settings = body.model_dump(mode="json", exclude=FIELDS_NOT_PRICED)
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    with image.open("rb") as file:  # the picture changed on disk: another quote
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return "q_" + digest.hexdigest()[:40]
