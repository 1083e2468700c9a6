"""One way to put the companion together, used by `companion ...` and `companion serve`.

- open_endpoint: the configured service, or with no key the embedded sandbox (imported
  only then, so the client path never loads it otherwise; its state lives in
  COMPANION_HOME/sandbox with one owner at a time, see sandbox_owner.py).
- open_client: one client for that endpoint (a proxy only for a remote service).
- open_engine: the job engine over a store, with the account it shares (this machine's
  own, or the team's), the budgets, the timeout and the clip store from the settings."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from companion.api.client import Client
from companion.api.transport import RetryPolicy
from companion.settings.config import Settings
from companion.settings.endpoint import EMBEDDED_KEY, Endpoint, address_mistake
from companion.settings.errors import ConfigError
from companion.store import Job, Store

if TYPE_CHECKING:
    from companion.api.pacing import Pacer
    from companion.api.schema import Task
    from companion.jobs import Engine


@asynccontextmanager
async def open_endpoint(settings: Settings, *, long_lived: bool = False) -> AsyncIterator[Endpoint]:
    """The configured service, or this home's embedded sandbox (`long_lived`: the
    caller is the daemon, whose sandbox other processes of the home use meanwhile)."""
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
    from companion.runtime.sandbox_owner import embedded_sandbox

    async with embedded_sandbox(settings.home, EMBEDDED_KEY, long_lived=long_lived) as url:
        yield Endpoint(url, EMBEDDED_KEY, sandbox=True)


def open_client(endpoint: Endpoint, attempts: int, *, pacer: Pacer | None = None) -> Client:
    """The client for endpoint (use it as `async with`), trying each call up to attempts
    times (the retry_attempts setting)."""
    return Client(
        endpoint.base_url,
        endpoint.api_key,
        policy=RetryPolicy(max_attempts=attempts),
        pacer=pacer,
        proxy=not endpoint.sandbox,
    )


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
    # The engine (and the media and install code it reaches) loads only here: a command
    # that asks the service one question (credits, models) never needs it.
    from companion.jobs import Budget, Engine, open_account
    from companion.store.clips import ClipStore

    async with open_account(settings, store, endpoint.base_url, client.pacer) as account:
        yield Engine(
            store,
            client,
            endpoint.base_url,
            budget=Budget(
                settings.budget_per_job,
                settings.budget_per_day,
                settings.budget_per_month,
                price_margin_percent=settings.price_margin_percent,
            ),
            timeout=timeout or settings.timeout_seconds,
            on_change=on_change,
            on_progress=on_progress,
            account=account,
            clips=ClipStore.of(settings),
        )
