"""The companion's durable books (SQLite): jobs, idempotency, uploads, assets, ledger."""

from companion.store.db import AssetRow, Job, Store
from companion.store.records import day_start, month_start

__all__ = ["AssetRow", "Job", "Store", "day_start", "month_start"]
