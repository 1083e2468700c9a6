"""The credit ledger: quotes, holds, charges, refunds and releases per job, and the
service's balance snapshots, from which spend and drift are read."""

from __future__ import annotations

from typing import Any

from companion.store.database import Database, run
from companion.store.records import now


class Ledger(Database):
    def record(self, job_id: str | None, entry: str, credits: int) -> None:
        with self._tx() as db:
            run(db, "record", job_id=job_id, entry=entry, credits=credits, stamp=now())

    def settle(self, job_id: str, charged: int, refunded: int, released: int) -> None:
        """Enter a job's credit movements as the service now reports them: what differs
        from the ledger's (a refund or a charge posted later) is entered as the
        difference; the same figures again change nothing."""
        with self._tx() as db:
            rows = run(db, "credit_moves_of_job", job_id=job_id, since=None).fetchall()
            have = {"charge": 0, "refund": 0, "release": 0}
            settled = False
            for row in rows:
                if row["entry"] in have:
                    have[row["entry"]] += row["credits"]
                    settled = True
            stamp = now()
            for entry, credits in (
                ("charge", charged),
                ("refund", refunded),
                ("release", released),
            ):
                if credits != have[entry]:
                    run(
                        db,
                        "record",
                        job_id=job_id,
                        entry=entry,
                        credits=credits - have[entry],
                        stamp=stamp,
                    )
                    settled = True
            if not settled:
                run(db, "record", job_id=job_id, entry="charge", credits=0, stamp=stamp)

    def committed(self) -> int:
        """Credits the companion's own jobs hold or spent: the net charge of settled jobs,
        the hold of unsettled ones. A released hold is neither."""
        return self.charged()

    def snapshot(self, available: int) -> tuple[int, int] | None:
        """Record a balance snapshot; return the previous (available, committed). One
        equal to the previous is not written again, so looking often costs nothing and
        the last drift stays readable (last_drift) until the figures move."""
        with self._tx() as db:
            previous = run(db, "last_balance").fetchone()
            committed = self.committed()
            if previous is not None and (previous["credits"], previous["committed"]) == (
                available,
                committed,
            ):
                return (previous["credits"], previous["committed"])
            run(db, "record_balance", credits=available, stamp=now(), committed=committed)
        return None if previous is None else (previous["credits"], previous["committed"])

    def ledger(self, job_id: str | None = None) -> list[dict[str, Any]]:
        if job_id is None:
            rows = self._rows("ledger")
        else:
            rows = self._rows("ledger_of_job", job_id=job_id)
        return [dict(r) for r in rows]

    def charged(self, job_id: str | None = None, since: str | None = None) -> int:
        """Credits spent or still held: net charges of settled jobs plus the holds of
        unsettled ones. A hold that was released (a cancel) is not spent."""
        moves = self.credit_moves(job_id, since)
        return moves["spent"] + moves["held"]

    def credit_moves(self, job_id: str | None = None, since: str | None = None) -> dict[str, int]:
        """Where the credits went, from the ledger rows at or after `since`: `spent` (net
        charges), `held` (holds of jobs not settled yet), `released` (holds given back)
        and `refunded` (charges given back; `spent` already excludes them).

        A job is settled once it has a charge, refund or release row; the service's
        `charged` is already net of refunds, so it is taken as it is."""
        if job_id is None:
            rows = self._rows("credit_moves", since=since)
        else:
            rows = self._rows("credit_moves_of_job", job_id=job_id, since=since)
        totals: dict[str, dict[str, int]] = {}
        for row in rows:
            entries = totals.setdefault(row["job_id"], {})
            entries[row["entry"]] = entries.get(row["entry"], 0) + row["credits"]
        moves = {"spent": 0, "held": 0, "released": 0, "refunded": 0}
        for entries in totals.values():
            settled = any(e in entries for e in ("charge", "refund", "release"))
            if settled:
                moves["spent"] += entries.get("charge", 0)
                moves["released"] += entries.get("release", 0)
                moves["refunded"] += entries.get("refund", 0)
            else:
                moves["held"] += entries.get("hold", 0)
        return moves

    def last_drift(self) -> tuple[int | None, str | None]:
        """Drift between the last two balance snapshots, and when the last was taken:
        (None, None) before two exist."""
        rows = self._rows("last_two_balances")
        if len(rows) < 2 or rows[0]["committed"] is None or rows[1]["committed"] is None:
            return None, None
        latest, previous = rows
        drift = (latest["credits"] + latest["committed"]) - (
            previous["credits"] + previous["committed"]
        )
        return int(drift), str(latest["at"])
