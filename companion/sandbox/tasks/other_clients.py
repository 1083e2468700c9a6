"""Face.other_tasks: tasks of other clients of the account, already there when the
sandbox starts (spec 2.2: a list holds every task the account owns, in no given order).
They are records only, finished and paid long ago: no media work, no running slot, no
effect on the balance."""

from __future__ import annotations

import uuid

from companion.sandbox.state import State, TaskRecord, iso, now

KINDS = ("video_generation", "animation_export", "animation")


def seed_other_tasks(state: State, account_id: str, count: int) -> None:
    """count finished tasks of each kind for a new account, older than anything it makes."""
    stamp = iso(now()) or ""
    for kind in KINDS:
        for index in range(count):
            task = TaskRecord(
                id=str(uuid.uuid4()),
                account_id=account_id,
                object=kind,
                seq=state.next_seq(),
                created_at=stamp,
                normalized_input={},
                # Another client's own marker, as a companion elsewhere would write it.
                metadata={"companion_job": str(uuid.uuid4()), "client": f"other-{index}"},
                price_video=4,
                price_export=0,
                status="succeeded",
                stage="completed",
                progress=1.0,
                started_at=stamp,
                finished_at=stamp,
                charged=4,
                credit_status="charged",
            )
            state.tasks[task.id] = task
