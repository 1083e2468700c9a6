"""The job engine as the command line runs it: the account state it shares (this
machine's own, or the team's in team mode), its budgets and its timeout."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from companion.api.client import Client
from companion.api.schema import Task
from companion.jobs.engine import Budget, Engine
from companion.jobs.team import open_account
from companion.settings.config import Settings
from companion.settings.endpoint import Endpoint
from companion.store import Job, Store
from companion.store.clips import ClipStore


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
