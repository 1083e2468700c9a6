"""The same command again finds its own unfinished job: a request's fingerprint covers
the input images' bytes, every option and the target, so a re-run after a crash or
Ctrl-C resumes that job (its key and body already on disk) instead of paying again."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from companion.jobs.lifecycle import FINAL
from companion.store import Job, Store

FINGERPRINT = "fingerprint"


def fingerprint(request: dict[str, Any], image_hashes: list[str], name: str, target: str) -> str:
    described = {key: value for key, value in request.items() if key not in (FINGERPRINT, "image")}
    described.pop("last_frame", None)
    described.pop("references", None)
    text = json.dumps(
        {"request": described, "images": image_hashes, "name": name, "target": target},
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def unfinished(store: Store, digest: str) -> Job | None:
    """The unfinished job with this fingerprint, if an earlier run left one."""
    for job in store.jobs():
        if job.state not in FINAL and job.request.get(FINGERPRINT) == digest:
            return job
    return None
