"""Where requests go: the configured service, or, with no key, the embedded sandbox.

This module only describes the endpoint and checks the configured address; starting
the embedded sandbox (one owner of its state per home at a time) is companion.runtime's
job."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from companion.settings.config import Settings

EMBEDDED_KEY = "sk-embedded-sandbox"


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    api_key: str
    sandbox: bool

    @property
    def label(self) -> str:
        return "embedded sandbox (no real credits)" if self.sandbox else self.base_url


def address_mistake(settings: Settings) -> str | None:
    """What is wrong with the configured service address and key, as one line naming
    the fix; None when they make sense (or neither is set: the embedded sandbox)."""
    url = (settings.base_url or "").strip()
    where = "COMPANION_BASE_URL (or base_url in config.yaml)"
    if settings.api_key is not None and not url:
        return (
            "an API key is configured but no service address: set COMPANION_BASE_URL "
            "(it includes /v1) or base_url in config.yaml"
        )
    if not url:
        return None
    if settings.api_key is None:
        return (
            f"{where} is {url} but no API key is set: set COMPANION_API_KEY (or api_key in "
            "config.yaml); to use the embedded sandbox instead, unset the address"
        )
    parts = urlsplit(url)
    if "://" not in url or parts.scheme not in ("http", "https"):
        return (
            f"{where} {url!r} has no http:// or https:// scheme; "
            f"give the whole address, e.g. https://{url.split('://')[-1]}"
        )
    if not parts.hostname:
        return f"{where} {url!r} names no host; e.g. https://api.example.com/v1"
    if parts.query or parts.fragment:
        return f"{where} {url!r}: the address takes no ?query or #fragment"
    if not parts.path.rstrip("/").endswith("/v1"):
        return f"{where} {url!r} must end with the API version /v1: use {url.rstrip('/')}/v1"
    return None
