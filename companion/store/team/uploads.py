"""One upload per picture per account: a member claims the picture (by SHA-256) on a
lease, uploads it and records the file_id everybody reuses; the others wait for it.
What this companion learnt is kept in its own store too."""

from __future__ import annotations

import asyncio

from companion.store.account import upload_scope
from companion.store.db import Store
from companion.store.team.database import TeamDatabase

POLL = 0.5  # seconds between two asks for another member's upload


class TeamUploads:
    def __init__(
        self,
        db: TeamDatabase,
        store: Store,
        service: str,
        member: str,
        *,
        lease: float,
        poll: float = POLL,
    ) -> None:
        self.db = db
        self.store = store
        self.service = service
        self.member = member
        self.lease = lease
        self.poll = poll
        self._uploading: dict[str, asyncio.Event] = {}  # pictures this companion uploads

    async def upload_for(self, owner: str, sha256: str, *, claim: bool) -> str | None:
        service = upload_scope(self.service, owner)
        while True:
            while sha256 in self._uploading:  # a job of this companion is uploading it
                await self._uploading[sha256].wait()
            known = self.store.upload_for(service, sha256)
            if known is not None:
                return known
            if not claim:
                found = await self.db.value("known_upload", service=service, sha256=sha256)
            else:
                rows = await self.db.fetch(
                    "claim_upload",
                    service=service,
                    sha256=sha256,
                    member=self.member,
                    lease=self.lease,
                )
                found = rows[0]["file_id"]
                if found is None and rows[0]["claimed"]:
                    if sha256 in self._uploading:
                        continue  # another job of ours claimed it meanwhile: wait for it
                    self._uploading[sha256] = asyncio.Event()
                    return None
                if found is None:
                    await asyncio.sleep(self.poll)  # another member is uploading it
                    continue
            if found is not None:
                self.store.remember_upload(service, sha256, str(found))
                return str(found)
            return None

    async def remember(self, owner: str, sha256: str, file_id: str) -> None:
        service = upload_scope(self.service, owner)
        await self.db.run(
            "remember_upload", service=service, sha256=sha256, file_id=file_id, member=self.member
        )
        self.store.remember_upload(service, sha256, file_id)
        self._claim_done(sha256)

    async def drop_claim(self, owner: str, sha256: str) -> None:
        service = upload_scope(self.service, owner)
        try:
            await self.db.run("drop_claim", service=service, sha256=sha256, member=self.member)
        finally:
            self._claim_done(sha256)

    async def forget(self, owner: str, sha256: str, file_id: str) -> None:
        """The service answered 404 for file_id: nobody of the team reuses it again."""
        service = upload_scope(self.service, owner)
        await self.db.run("forget_upload", service=service, sha256=sha256, file_id=file_id)
        self.store.forget_upload(service, sha256, file_id)

    def _claim_done(self, sha256: str) -> None:
        event = self._uploading.pop(sha256, None)
        if event is not None:
            event.set()
