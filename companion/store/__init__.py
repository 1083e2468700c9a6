"""The companion's durable books (SQLite): jobs, idempotency, uploads, assets, ledger."""

from companion.store.db import AssetRow, Job, Store

__all__ = ["AssetRow", "Job", "Store"]
