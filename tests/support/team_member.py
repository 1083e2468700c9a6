"""A team member in its own process, for the tests that kill one or skew its clock.

    python -m tests.support.team_member DSN MEMBER LEASE HOME hold|skewed

`hold` takes a reservation, a slot and an upload claim, prints `held`, then waits to be
killed. `skewed` prints its own clock, takes the create window and a reservation, prints
`done` and exits."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

from companion.api.schema import AccountLimits
from companion.store import Store
from companion.store.team import PostgresAccount

LIMITS = AccountLimits(concurrency=1, queue=1, create_per_minute=1, other_per_minute=60)


async def main(dsn: str, member: str, lease: float, home: Path, action: str) -> None:
    store = Store(home / "companion.db")
    async with PostgresAccount(
        dsn, store=store, service="http://sandbox", member=member, lease=lease
    ) as account:
        account.configure(LIMITS, 60.0)
        if action == "hold":
            assert await account.reserve("job-held", 40, approved=False) is None
            await account.acquire_slot("job-held", 1)
            await account.acquire_slot("job-held-2", 1)
            assert await account.upload_for("account-1", "picture", claim=True) is None
            print("held", flush=True)
            await asyncio.sleep(3600)
        elif action == "skewed":
            wait, ticket = await account.take_room("create", 1, 30.0)
            account.answered(ticket)  # as a request sent at once would be
            refused = await account.reserve("job-skewed", 10, approved=False)
            print(json.dumps({"clock": time.time(), "wait": wait, "refused": refused}))
            print("done", flush=True)


if __name__ == "__main__":
    dsn, member, lease, home, action = sys.argv[1:6]
    asyncio.run(main(dsn, member, float(lease), Path(home), action))
