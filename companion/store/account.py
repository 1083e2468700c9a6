"""What belongs to the account rather than to one machine, behind one small interface.

The service's limits and credits are account-wide: request windows and 429 holds, slots
at the service (concurrency + queue), budgets, the ledger, and uploaded pictures
(file_id by sha256, per account at the service: files are owned by the account, spec
2.6, and a file id of another account is a 404). The job engine and the client's pacer
call `SharedAccount`; there are two implementations:

- `LocalAccount` (the default): one companion alone, today's behaviour. Its windows are
  the pacer's own, its slots the engine's in-process gate, its books the SQLite store.
- `companion.store.team.PostgresAccount`: every companion of a team shares one
  PostgreSQL database; jobs, staging and installs stay local.

A call that cannot reach the shared database raises `TeamUnavailable`; nothing is sent
to the service without what the call was to grant, and the engine tries again."""

from __future__ import annotations

from typing import Any, Protocol

from companion.api.schema import AccountLimits
from companion.store.db import Store


def upload_scope(service: str, owner: str) -> str:
    """What uploads are remembered under: the service and the account there. (Records
    made under the bare service address, before accounts were told apart, match no
    scope and are never reused.)"""
    return f"{service}#account={owner}"


class SharedAccount(Protocol):
    """The account-wide state. Every time it reasons about comes from one clock."""

    member: str
    shared: bool  # True when other companions take part

    # -- request windows and 429 holds (called by the client's pacer) --------------------
    def configure(self, limits: AccountLimits, window: float) -> None: ...
    async def take_room(
        self, kind: str, limit: int | None, window: float
    ) -> tuple[float, object | None]:
        """Take room for one request of this kind: (seconds to wait before sending it,
        a ticket for `answered`), the room being booked for then; or, while a 429's hold
        lasts, (seconds to wait before asking again, None)."""
        ...

    def answered(self, ticket: object) -> None:
        """The request given that room was answered: the service has counted it."""
        ...

    async def hold(self, seconds: float) -> None:
        """A 429's Retry-After: nobody of the account sends anything for this long."""
        ...

    # -- slots at the service ------------------------------------------------------------
    async def acquire_slot(self, job_id: str, priority: int, *, present: bool = False) -> None:
        """Wait for room at the service (fairly); `present`: the task is already there."""
        ...

    async def release_slot(self, job_id: str) -> None: ...

    # -- budgets and the ledger ----------------------------------------------------------
    async def reserve(self, job_id: str, credits: int, *, approved: bool) -> str | None:
        """Reserve credits before a create: None when reserved, else the budget that has
        no room (the job then waits for approval)."""
        ...

    async def forget(self, job_id: str) -> None:
        """The job will not be created: give back its reservation and slot."""
        ...

    async def record(self, job_id: str | None, entry: str, credits: int) -> None: ...
    async def settle(self, job_id: str, charged: int, refunded: int, released: int) -> None: ...
    async def reconcile(self, available: int) -> dict[str, int | None]: ...

    # -- uploads (owner: the account's id at the service, from GET /account) ---------------
    async def upload_for(self, owner: str, sha256: str, *, claim: bool) -> str | None:
        """A known file_id for this picture, or None. With `claim`, None means this
        companion is now the one to upload it (others wait for its file_id)."""
        ...

    async def remember_upload(self, owner: str, sha256: str, file_id: str) -> None: ...
    async def drop_claim(self, owner: str, sha256: str) -> None: ...
    async def forget_upload(self, owner: str, sha256: str, file_id: str) -> None:
        """The service no longer knows file_id (404: retention is not shown, spec 8)."""
        ...

    async def status(self) -> dict[str, Any]: ...
    async def close(self) -> None: ...


class LocalAccount:
    """One companion alone: the SQLite store keeps the books and the uploads; windows
    are kept by the pacer itself and slots by the engine's in-process gate."""

    shared = False

    def __init__(self, store: Store, service: str, member: str = "local") -> None:
        self.store = store
        self.service = service
        self.member = member

    def configure(self, limits: AccountLimits, window: float) -> None:
        return None

    async def take_room(
        self, kind: str, limit: int | None, window: float
    ) -> tuple[float, object | None]:
        return 0.0, None

    def answered(self, ticket: object) -> None:
        return None

    async def hold(self, seconds: float) -> None:
        return None

    async def acquire_slot(self, job_id: str, priority: int, *, present: bool = False) -> None:
        return None

    async def release_slot(self, job_id: str) -> None:
        return None

    async def reserve(self, job_id: str, credits: int, *, approved: bool) -> str | None:
        return None  # the engine's own per-job and per-day rules are the whole budget

    async def forget(self, job_id: str) -> None:
        return None

    async def record(self, job_id: str | None, entry: str, credits: int) -> None:
        self.store.record(job_id, entry, credits)

    async def settle(self, job_id: str, charged: int, refunded: int, released: int) -> None:
        self.store.settle(job_id, charged, refunded, released)

    async def reconcile(self, available: int) -> dict[str, int | None]:
        """While only this companion spends, available + committed stays constant between
        snapshots; any change is drift (another client of the account, or a
        disagreement to look into)."""
        previous = self.store.snapshot(available)
        committed = self.store.committed()
        drift = None
        if previous is not None:
            drift = (available + committed) - (previous[0] + previous[1])
        return {"available": available, "committed": committed, "drift": drift}

    async def upload_for(self, owner: str, sha256: str, *, claim: bool) -> str | None:
        return self.store.upload_for(upload_scope(self.service, owner), sha256)

    async def remember_upload(self, owner: str, sha256: str, file_id: str) -> None:
        self.store.remember_upload(upload_scope(self.service, owner), sha256, file_id)

    async def drop_claim(self, owner: str, sha256: str) -> None:
        return None

    async def forget_upload(self, owner: str, sha256: str, file_id: str) -> None:
        self.store.forget_upload(upload_scope(self.service, owner), sha256, file_id)

    async def status(self) -> dict[str, Any]:
        return {"team": False, "member": self.member}

    async def close(self) -> None:
        return None
