"""Where requests go: the configured service, or, with no key, the embedded sandbox.

The sandbox is imported only here and only when it is needed, so the client path never
loads it otherwise. Its state lives in COMPANION_HOME/sandbox, so its credits and tasks
persist from one run to the next."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from companion.settings.config import ConfigError, Settings

EMBEDDED_KEY = "sk-embedded-sandbox"


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    api_key: str
    sandbox: bool

    @property
    def label(self) -> str:
        return "embedded sandbox (no real credits)" if self.sandbox else self.base_url


@asynccontextmanager
async def open_endpoint(settings: Settings) -> AsyncIterator[Endpoint]:
    if settings.api_key is not None:
        if not settings.base_url:
            raise ConfigError(
                "an API key is configured but no service address: set "
                "COMPANION_BASE_URL (it includes /v1) or base_url in config.yaml"
            )
        yield Endpoint(settings.base_url, settings.api_key.get_secret_value(), sandbox=False)
        return
    from companion.sandbox import Sandbox, SandboxConfig

    state = settings.home / "sandbox" / "state.json"
    config = SandboxConfig(api_keys=[EMBEDDED_KEY], state=state, task_seconds=2.0)
    async with Sandbox(config) as sandbox:
        yield Endpoint(sandbox.base_url, EMBEDDED_KEY, sandbox=True)
