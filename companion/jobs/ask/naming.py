"""An animation's name, settled before anything is quoted: which names a target's jobs
already took, and the free name to offer when the one asked for would meet a file the
install may not replace. The inbox takes the free name itself; the daemon's API and the
command line refuse before spending and say which name to use instead."""

from __future__ import annotations

from pathlib import Path

from companion.install import free_name, planned_writes
from companion.jobs.lifecycle import State
from companion.store import Store


def names_in(store: Store, target_dir: str) -> set[str]:
    """Names that jobs wrote, or will write, into target_dir (a job that ended before it
    reached the service wrote nothing)."""
    return {
        j.name
        for j in store.jobs()
        if j.target_dir == target_dir
        and (j.remote_id or j.state not in (State.FAILED, State.CANCELLED))
    }


def suggestion(store: Store, engine: str, target: Path, name: str, formats: list[str]) -> str:
    """The first of name_2, name_3, ... that no job in target took and none of whose
    planned files exists: a name whose install meets nothing at all."""
    return free_name(
        name,
        names_in(store, str(target.resolve())) | {name},
        target,
        lambda candidate: planned_writes(engine, target, candidate, formats),
    )
