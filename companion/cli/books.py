"""The books behind `companion credits`, from the local ledger every job (command line,
daemon, watched folders) writes to."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.settings.config import Settings
from companion.store import Store
from companion.store.account import LocalAccount
from companion.store.books import disagreement, store_books

if TYPE_CHECKING:
    from companion.api.client import Client
    from companion.settings.endpoint import Endpoint

__all__ = ["books", "disagreement", "follow_books"]


async def follow_books(client: Client, endpoint: Endpoint, settings: Settings) -> None:
    """Credits the service posted after a job moved on, entered before the books are
    read (companion.jobs.remote.books). A team's are entered by its members' engines."""
    if not settings.database.exists() or settings.team_database is not None:
        return
    from companion.jobs import follow_pending

    store = Store(settings.database)
    try:
        await follow_pending(store, client, LocalAccount(store, endpoint.base_url))
    finally:
        store.close()


def books(settings: Settings, available: int | None = None) -> dict[str, Any]:
    if not settings.database.exists():
        empty = {"today": 0, "month": 0, "held": 0, "spent_today": 0, "spent_month": 0}
        return {**empty, "released_today": 0, "released_month": 0, "jobs": []}
    store = Store(settings.database)
    try:
        return store_books(store, available)
    finally:
        store.close()
