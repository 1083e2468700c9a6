"""The books behind `companion credits`, from the local ledger every job (command line,
daemon, watched folders) writes to."""

from __future__ import annotations

from typing import Any

from companion.settings.config import Settings
from companion.store import Store
from companion.store.books import disagreement, store_books

__all__ = ["books", "disagreement"]


def books(settings: Settings, available: int | None = None) -> dict[str, Any]:
    if not settings.database.exists():
        empty = {"today": 0, "month": 0, "held": 0, "spent_today": 0, "spent_month": 0}
        return {**empty, "released_today": 0, "released_month": 0, "jobs": []}
    store = Store(settings.database)
    try:
        return store_books(store, available)
    finally:
        store.close()
