"""Why a job's outputs could not be written into its folder, and where the paid work is
meanwhile: the messages a full disk or a folder taken away ends a job with."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from companion.store import Job
from companion.store.records import AssetRow


def unwritable(job: Job, assets: Sequence[AssetRow], target: Path, exc: OSError) -> str:
    """Why the outputs of a finished task cannot go into its target, and where they
    are instead: still at the service, paid for, one download each."""
    reason = exc.strerror or str(exc)
    where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(target) else ""
    named = ", ".join(f"{row.id} ({row.format})" for row in assets)
    return (
        f"cannot write the outputs into {target}: {reason}{where}. The video was made "
        "and paid for, and its outputs stay at the service: fix the folder, then run "
        f"the same command again or companion jobs retry {job.id[:8]} to install them "
        "without paying again (or download each with companion assets download "
        "ASSET_ID --out FILE)" + (f"; assets: {named}" if named else "")
    )


def unexportable(job: Job, exc: OSError) -> str:
    """Why a kept video cannot be exported into its target here, and that trying again
    is free."""
    reason = exc.strerror or str(exc)
    inside = exc.filename and str(exc.filename).startswith(str(job.target_dir))
    where = f" ({exc.filename})" if exc.filename and not inside else ""
    return (
        f"cannot write the outputs into {job.target_dir}: {reason}{where}. The video is "
        "paid for and kept here: fix the folder (free some space, make it writable), "
        f"then run the same command again or companion jobs retry {job.id[:8]} to "
        "make its files here again, without paying again"
    )
