"""A job's local lifecycle, as an explicit state machine.

    new ──> quoted ──> creating ──> running ──> downloading ──> installing ──> done
     │        │  └─> awaiting_approval ─┘          (outputs of failed or cancelled
     │        │                                      tasks are installed too, then
     └────────┴──> failed | cancelled                the job ends failed/cancelled)
                          creating <──> unknown

A create the service was still accepting after a generous wait is `unknown`: the task
may exist (its hold is counted in the books); running the job again (the same command,
`companion jobs run`, the daemon's start) looks for it and resumes it, never paying for
a second one.

A job the service made and charged for whose outputs did not all go in (a full disk, a
folder made read-only, a cancel while downloading) goes from failed or cancelled back to
downloading: its outputs are fetched and installed again, free.

Every state is written before its work starts, so a killed process resumes each job
from its record alone: `creating` holds the Idempotency-Key and the exact body bytes,
`running` the remote task id, `downloading` and `installing` the per-asset progress."""

from __future__ import annotations

from enum import StrEnum

from companion.jobs.errors import TransitionError


class State(StrEnum):
    NEW = "new"
    QUOTED = "quoted"
    AWAITING_APPROVAL = "awaiting_approval"
    CREATING = "creating"
    UNKNOWN = "unknown"  # the create's outcome is not known yet (see above)
    RUNNING = "running"
    DOWNLOADING = "downloading"
    INSTALLING = "installing"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


FINAL = frozenset({State.DONE, State.FAILED, State.CANCELLED})
# Where a run stops without the job being final: it waits for the user, or for the next
# run to find out what its create made.
PAUSED = frozenset({State.AWAITING_APPROVAL, State.UNKNOWN})

ALLOWED: dict[State, frozenset[State]] = {
    # A re-cut goes from new straight to installing: its video is local, already paid.
    State.NEW: frozenset({State.QUOTED, State.INSTALLING, State.FAILED, State.CANCELLED}),
    State.QUOTED: frozenset(
        {State.CREATING, State.AWAITING_APPROVAL, State.FAILED, State.CANCELLED}
    ),
    State.AWAITING_APPROVAL: frozenset({State.QUOTED, State.CANCELLED}),
    State.CREATING: frozenset({State.RUNNING, State.UNKNOWN, State.FAILED}),
    State.UNKNOWN: frozenset({State.CREATING}),
    State.RUNNING: frozenset({State.DOWNLOADING}),
    State.DOWNLOADING: frozenset({State.INSTALLING, State.FAILED}),  # e.g. a link in the way
    State.INSTALLING: frozenset({State.DONE, State.FAILED, State.CANCELLED}),
    State.DONE: frozenset(),
    State.FAILED: frozenset({State.NEW, State.DOWNLOADING}),  # retry; reinstall if paid
    State.CANCELLED: frozenset({State.NEW, State.DOWNLOADING}),
}


def check(current: str, target: State) -> None:
    if target not in ALLOWED[State(current)]:
        raise TransitionError(f"a job cannot go from {current} to {target.value}")
