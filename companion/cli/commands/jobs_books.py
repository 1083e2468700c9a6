"""`companion jobs list` and `companion jobs show`: the local books, read without the
service, so these start without loading the client, the engine or the media code."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from companion.cli.errors import UsageError
from companion.cli.session import settings as load
from companion.jobs import job_view
from companion.store import Job, Store


def _job_json(store: Store, job: Job) -> dict[str, Any]:
    view = job_view(store, job, ledger=True)
    return {
        "id": view.id,
        "state": view.state,
        "name": view.name,
        "priority": view.priority,
        "quote": view.quote,
        "remote_id": view.remote_id,
        "target_dir": view.target_dir,
        "error": view.error,
        "created_at": view.created_at,
        "updated_at": view.updated_at,
        "ledger": [asdict(c) for c in view.ledger],
        "outputs": [asdict(o) for o in view.outputs],
        # Outputs of formats not known here: where each was kept (or that it is at the
        # service), never in the project.
        "kept_aside": list(view.kept_aside),
    }


def find(store: Store, prefix: str) -> Job:
    matches = [j for j in store.jobs() if j.id.startswith(prefix)]
    if len(matches) != 1:
        raise UsageError(f"job {prefix!r}: no single job matches; see: companion jobs list")
    return matches[0]


def cmd_list(args: argparse.Namespace) -> int:
    store = Store(load().database)
    try:
        for job in store.jobs():
            print(
                f"{job.id}  {job.state:<18} {job.quote if job.quote is not None else '-':>5}  "
                f"{job.name}"
            )
    finally:
        store.close()
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    store = Store(load().database)
    try:
        print(json.dumps(_job_json(store, find(store, args.job)), indent=2))
    finally:
        store.close()
    return 0
