"""The books behind `companion credits`: spend today, this month and per job, from the
local ledger every job (command line, daemon, watched folders) writes to."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from companion.settings.config import Settings
from companion.store import Store


def books(settings: Settings) -> dict[str, Any]:
    if not settings.database.exists():
        return {"today": 0, "month": 0, "jobs": []}
    store = Store(settings.database)
    try:
        moment = datetime.now(UTC)
        today = moment.strftime("%Y-%m-%dT00:00:00Z")
        month = moment.strftime("%Y-%m-01T00:00:00Z")
        per_job = [
            {"job": j.id, "name": j.name, "state": j.state, "credits": store.charged(j.id)}
            for j in store.jobs()
        ]
        return {
            "today": store.charged(since=today),
            "month": store.charged(since=month),
            "jobs": per_job,
        }
    finally:
        store.close()
