"""Which account state a companion runs with: its own (the default) or its team's.

Team mode is on when settings name a team database (config.yaml `team:` or
COMPANION_TEAM_DATABASE). Then the client's pacer takes room in the team's windows, and
the engine's slots, budget reservations, ledger and uploads are the team's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from companion.api.pacing import Pacer
from companion.settings.config import Settings
from companion.store import Store
from companion.store.account import LocalAccount, SharedAccount


@asynccontextmanager
async def open_account(
    settings: Settings, store: Store, service: str, pacer: Pacer
) -> AsyncIterator[SharedAccount]:
    """The account state for this companion; raises TeamUnavailable if the team's
    database cannot be opened (the message names it, never its password)."""
    if settings.team_database is None:
        yield LocalAccount(store, service)
        return
    from companion.store.team import PostgresAccount

    account = PostgresAccount(
        settings.team_database.get_secret_value(),
        store=store,
        service=service,
        member=settings.team_member,
        lease=settings.team_lease_seconds,
        pooled=settings.team_pooled,
    )
    await account.open()
    pacer.share(account)
    try:
        yield account
    finally:
        pacer.share(None)
        await account.close()
