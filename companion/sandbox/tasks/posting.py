"""A task's credit outcome, decided at its end and posted to the account: at once on the
default face; on the latitude face (Face.credits_posted_after) that many seconds later,
`credits.status` staying `held` with the hold still shown meanwhile (spec 2.3 does not
say the end is the books' end)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from companion.sandbox.state import State, TaskRecord


def outcome(task: TaskRecord, charge: int, refund: bool) -> dict[str, Any]:
    """The CreditUsage members the end sets, and the credits given back to the account."""
    if refund:
        return {
            "charged": 0,
            "refunded": task.quoted,
            "released": 0,
            "status": "refunded",
            "returned": task.held,
        }
    returned = task.held - charge
    return {
        "charged": charge,
        "refunded": 0,
        "released": returned,
        "status": "charged" if charge else "released",
        "returned": returned,
    }


class Posting:
    def __init__(self, state: State, delay: float, save: Callable[[], None]) -> None:
        self.state = state
        self.delay = delay
        self.save = save

    def settle(self, task: TaskRecord, charge: int, refund: bool) -> None:
        posting = outcome(task, charge, refund)
        if not self.delay:
            self._post(task, posting)
            return
        posting["at"] = time.time() + self.delay
        task.posting = posting
        asyncio.get_running_loop().call_later(self.delay, self.post_due)

    def _post(self, task: TaskRecord, posting: dict[str, Any]) -> None:
        account = self.state.accounts[task.account_id]
        account.available += int(posting["returned"])
        task.charged = int(posting["charged"])
        task.refunded = int(posting["refunded"])
        task.released = int(posting["released"])
        task.credit_status = str(posting["status"])
        task.held = 0
        task.posting = None

    def post_due(self) -> None:
        """Post every outcome whose time has come."""
        moment = time.time()
        due = [t for t in self.state.tasks.values() if t.posting and t.posting["at"] <= moment]
        for task in due:
            assert task.posting is not None
            self._post(task, task.posting)
        if due:
            self.save()

    def resume(self) -> None:
        """After a restart: what was due is posted, the rest when due."""
        self.post_due()
        for task in self.state.tasks.values():
            if task.posting:
                wait = max(0.0, task.posting["at"] - time.time())
                asyncio.get_running_loop().call_later(wait, self.post_due)
