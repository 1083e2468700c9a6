"""The end of a job run from the command line, in one summary: its state, what this run
spent, and the files it installed (or, as JSON, the same for scripts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.cli.errors import AwaitingApproval, InputFailure, ServiceRefused, say
from companion.jobs import JobRequest, State
from companion.store import Job, Store

REFUSED = "the service refused"  # how the engine words a refusal in a job's error


def _size(path: str) -> int | None:
    try:
        return Path(path).stat().st_size
    except OSError:
        return None


def summary(job: Job, charged_before: int | None) -> dict[str, Any]:
    """The job's end as JSON: its state, what it cost, what this run spent on it
    (charged_before: what it had cost when this run took it up; None: this run only
    found it done, so it spent nothing), and the files it installed."""
    from companion.settings.config import load_settings

    store = Store(load_settings().database)
    try:
        assets = store.assets(job.id)
        charged = store.charged(job.id)
    finally:
        store.close()
    spent_now = 0 if charged_before is None else max(0, charged - charged_before)
    # The size of the file at the path (a pack's download size is not that of the one
    # resource installed from it); None for a file no longer there.
    outputs = [
        {"format": a.format, "path": a.installed_path, "bytes": _size(a.installed_path)}
        for a in assets
        if a.installed_path
    ]
    said: dict[str, Any] = {
        "job": job.id,
        "state": job.state,
        "task_id": job.remote_id,
        "credits": charged,
        "spent_now": spent_now,
        "recut_of": job.request.get("parent") if job.kind == "recut" else None,
        "error": job.error,
        "outputs": outputs,
        "kept_aside": job.kept_aside,
        # The pixel art its frames were made as (palette, grid, ...), None: smooth.
        "pixel_art": JobRequest.of(job.request).pixel_art,
    }
    loop = (job.resolved or {}).get("loop")  # --loop auto: the span chosen, its seam
    if loop is not None:
        said["loop"] = loop
    return said


def report(job: Job, as_json: bool, charged_before: int | None) -> int:
    """The job's end, in one summary (see summary); the exit code, or the failure."""
    made = summary(job, charged_before)
    charged, spent_now, outputs = made["credits"], made["spent_now"], made["outputs"]
    if as_json:
        print(json.dumps(made))
    else:
        said = str(job.state)
        if job.state != State.DONE and job.remote_status == "succeeded":
            said = "made at the service, but its outputs did not go in"
        if job.remote_id and spent_now:
            say(f"task {job.remote_id}: {said}; charged {spent_now} credits")
        elif job.remote_id:
            earlier = f" (it cost {charged} credits when it was made)" if charged else ""
            say(f"task {job.remote_id}: {said}; nothing spent by this run{earlier}")
        elif job.kind == "recut":
            parent = str(job.request.get("parent", ""))[:8]
            say(f"re-cut of job {parent}'s kept clip: {said}; nothing spent")
        for output in outputs:
            size = output["bytes"]
            shown = f"{size:,} bytes" if size is not None else "no longer there"
            print(f"  {output['format']:<20} {output['path']}  ({shown})")
        for item in made["kept_aside"]:
            # Of a format this companion does not know: not in the project, named here.
            where = item.get("path") or (
                f"at the service: companion assets download {item['asset']} --out FILE"
            )
            print(f"  kept aside: {item['format']} ({item['mime_type']}) {where}")
    return outcome(job)


def outcome(job: Job) -> int:
    """0 for a done job; else the failure that says why, with its exit code."""
    if job.state == State.AWAITING_APPROVAL:
        raise AwaitingApproval(
            f"job {job.id[:8]} costs {job.quote} credits, over a budget in config.yaml; "
            f"nothing was spent. Approve it with: companion jobs approve {job.id[:8]} "
            f"(that command makes it, paying the {job.quote} credits, and writes its outputs "
            f"to {job.target_dir}; there is no need to run this one again); or drop it with: "
            f"companion jobs cancel {job.id[:8]}"
        )
    if job.state == State.DONE:
        return 0
    error = job.error or job.state
    if REFUSED in error:
        raise ServiceRefused(error)
    raise InputFailure(f"job {job.id[:8]} {job.state}: {error}")
