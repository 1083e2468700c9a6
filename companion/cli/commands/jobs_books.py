"""`companion jobs list` and `companion jobs show`: the local books, read without the
service, so these start without loading the client, the engine or the media code."""

from __future__ import annotations

import argparse
import json
from typing import Any

from companion.cli.errors import UsageError
from companion.cli.session import settings as load
from companion.store import Job, Store


def _job_json(store: Store, job: Job) -> dict[str, Any]:
    return {
        "id": job.id,
        "state": job.state,
        "name": job.name,
        "priority": job.priority,
        "quote": job.quote,
        "remote_id": job.remote_id,
        "target_dir": job.target_dir,
        "error": job.error,
        "created_at": job.created_at,
        "updated_at": job.updated_at,
        "ledger": [{k: e[k] for k in ("entry", "credits", "at")} for e in store.ledger(job.id)],
        "outputs": [
            {
                "asset": a.id,
                "format": a.format,
                "file": a.file_name,
                "bytes": a.byte_size,
                "installed": a.installed_path,
            }
            for a in store.assets(job.id)
        ],
        # Outputs of formats not known here: where each was kept (or that it is at the
        # service), never in the project.
        "kept_aside": job.kept_aside,
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
