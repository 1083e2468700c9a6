"""One way to put the companion together, used by `companion ...` and `companion serve`.

- open_endpoint: the configured service, or with no key the embedded sandbox (imported
  only here and only then, so the client path never loads it otherwise; its state lives
  in COMPANION_HOME/sandbox, so credits and tasks persist from one run to the next).
- open_client: one client for that endpoint (a proxy only for a remote service).
- open_engine: the job engine over a store, with the account it shares (this machine's
  own, or the team's), the budgets, the timeout and the clip store from the settings."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from companion.api.client import Client
from companion.api.pacing import Pacer
from companion.api.schema import Task
from companion.jobs.engine import Budget, Engine
from companion.jobs.team import open_account
from companion.settings.config import ConfigError, Settings
from companion.settings.endpoint import EMBEDDED_KEY, Endpoint, address_mistake
from companion.store import Job, Store
from companion.store.clips import ClipStore


@asynccontextmanager
async def open_endpoint(settings: Settings) -> AsyncIterator[Endpoint]:
    mistake = address_mistake(settings)
    if mistake is not None:
        raise ConfigError(mistake)
    if settings.api_key is not None and settings.base_url:
        yield Endpoint(
            settings.base_url.strip().rstrip("/"),
            settings.api_key.get_secret_value(),
            sandbox=False,
        )
        return
    from companion.sandbox import Sandbox, SandboxConfig

    state = settings.home / "sandbox" / "state.json"
    config = SandboxConfig(api_keys=[EMBEDDED_KEY], state=state, task_seconds=2.0)
    async with Sandbox(config) as sandbox:
        yield Endpoint(sandbox.base_url, EMBEDDED_KEY, sandbox=True)


def open_client(endpoint: Endpoint, *, pacer: Pacer | None = None) -> Client:
    """The client for endpoint (use it as `async with`)."""
    return Client(endpoint.base_url, endpoint.api_key, pacer=pacer, proxy=not endpoint.sandbox)


@asynccontextmanager
async def open_engine(
    client: Client,
    endpoint: Endpoint,
    settings: Settings,
    store: Store,
    *,
    timeout: float | None = None,
    on_change: Callable[[Job], None] | None = None,
    on_progress: Callable[[Job, Task], None] | None = None,
) -> AsyncIterator[Engine]:
    async with open_account(settings, store, endpoint.base_url, client.pacer) as account:
        yield Engine(
            store,
            client,
            endpoint.base_url,
            budget=Budget(settings.budget_per_job, settings.budget_per_day),
            timeout=timeout or settings.timeout_seconds,
            on_change=on_change,
            on_progress=on_progress,
            account=account,
            clips=ClipStore(settings.clip_folder, settings.clip_store_mb * 2**20),
        )
