"""The books as a person reads them: what is held, spent and released today, this month
and per job, and whether they agree with the service's balance."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from companion.store.db import Store
from companion.store.records import day_start, month_start


def store_books(store: Store, available: int | None = None) -> dict[str, Any]:
    """The books of one store. With the service's `available`, a balance snapshot is
    taken and `agree` says whether the balance moved by what the books account for."""
    moment = datetime.now(UTC)
    today = store.credit_moves(since=day_start(moment))
    month = store.credit_moves(since=month_start(moment))
    per_job = []
    for job in store.jobs():
        moves = store.credit_moves(job.id)
        per_job.append(
            {
                "job": job.id,
                "name": job.name,
                "state": job.state,
                "credits": moves["spent"] + moves["held"],
                **moves,
            }
        )
    out: dict[str, Any] = {
        # spent + still held: what budgets count
        "today": today["spent"] + today["held"],
        "month": month["spent"] + month["held"],
        "held": store.credit_moves()["held"],
        "spent_today": today["spent"],
        "spent_month": month["spent"],
        "released_today": today["released"] + today["refunded"],
        "released_month": month["released"] + month["refunded"],
        "jobs": per_job,
    }
    if available is not None:
        store.snapshot(available)
        drift, since = store.last_drift()
        out["drift"] = drift
        out["drift_since"] = since
        out["agree"] = not drift
    return out


def disagreement(drift: int | None, since: str | None) -> str | None:
    """The sentence that says the books and the service's balance disagree, or None."""
    if not drift:
        return None
    more = "more" if drift < 0 else "less"
    return (
        f"the books and the service disagree: at {since} the service's balance moved "
        f"{abs(drift)} credits {more} than the companion's jobs account for (another "
        "client of the account, a top-up, or an error in the books)"
    )
