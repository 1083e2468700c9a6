"""`companion clips`: the paid videos the companion keeps, the user's paid assets. Each is
one generation (a picture, prompt and video options paid for once); every request of that
generation since was a free re-cut of it. Listed oldest first, as a size cap (if the user
set one) would let them go, with the clips a cap already let go."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

from companion.cli.errors import UsageError
from companion.store import Job, Store
from companion.store.clips import ClipStore, KeptClip


def _answered(store: Store, job_id: str) -> list[Job]:
    """The re-cuts this clip made, free: every job cut from it."""
    return [j for j in store.jobs_with("parent", job_id) if j.kind == "recut"]


def _row(store: Store, clip: KeptClip) -> dict[str, Any]:
    try:
        job: Job | None = store.job(clip.job_id)
    except KeyError:
        job = None  # kept by a companion whose database was reset
    request = job.request if job is not None else {}
    recuts = _answered(store, clip.job_id)
    return {
        "job": clip.job_id,
        "bytes": clip.size,
        "used": datetime.fromtimestamp(clip.used, UTC).isoformat(timespec="seconds"),
        "name": job.name if job is not None else None,
        "prompt": request.get("prompt"),
        "image": request.get("image"),
        "generation": request.get("generation"),
        "answered": [{"job": j.id, "name": j.name, "state": j.state} for j in recuts],
    }


def cmd_clips(args: argparse.Namespace) -> int:
    from companion.settings.config import load_settings
    from companion.settings.errors import ConfigError

    try:
        settings = load_settings()
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    clips = ClipStore.of(settings)
    store = Store(settings.database)
    try:
        rows = [_row(store, clip) for clip in clips.listing()]
    finally:
        store.close()
    total = sum(int(r["bytes"]) for r in rows)
    evicted = clips.evicted()
    if args.json:
        print(json.dumps({"clips": rows, "bytes": total, "cap_mb": settings.clip_store_mb,
                          "evicted": evicted}))  # fmt: skip
        return 0
    cap = "no cap" if settings.clip_store_mb is None else f"cap {settings.clip_store_mb} MB"
    print(f"{len(rows)} kept clips, {total:,} bytes ({cap}; clip_store_mb in config.yaml)")
    for row in rows:
        answered = len(row["answered"])
        print(f"  {row['job'][:8]}  {row['bytes']:>12,} bytes  {row['used']}  "
              f"{row['name'] or '?'}: {row['prompt'] or '?'!r}; answered {answered} "
              f"re-cut{'s' if answered != 1 else ''} free")  # fmt: skip
    for job_id in evicted:
        print(f"  {job_id[:8]}  evicted by the cap: its generation is paid again if asked")
    return 0
