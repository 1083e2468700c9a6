"""The live model listing (GET /models), kept for a few minutes per service so that
checking options before a quote costs no round trip on every command."""

from __future__ import annotations

import json
import time
from pathlib import Path

from companion.api.client import Client
from companion.api.schema import ModelsResponse

TTL_SECONDS = 300.0


async def live_models(client: Client, cache_dir: Path, service: str) -> ModelsResponse:
    path = cache_dir / "models.json"
    try:
        cached = json.loads(path.read_text())
        if cached["service"] == service and time.time() - cached["at"] < TTL_SECONDS:
            return ModelsResponse.model_validate(cached["models"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no cache, or one from an older shape: ask again
    models = await client.list_models()
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fresh = {"service": service, "at": time.time(), "models": models.model_dump(mode="json")}
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(fresh))
        temporary.replace(path)
    except OSError:
        pass  # a cache that cannot be written only costs a round trip next time
    return models
