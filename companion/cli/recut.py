"""`companion recut JOB`: a finished job's kept video exported again, locally, for free:
other frames, fps, size, range, padding or formats. It is `companion export` run on the
clip the companion kept, so its files are exactly what export makes from that video."""

from __future__ import annotations

import argparse

from companion.cli.errors import InputFailure, UsageError


def cmd_recut(args: argparse.Namespace) -> int:
    from companion.cli.export import cmd_export
    from companion.cli.jobs import _find
    from companion.settings.config import ConfigError, load_settings
    from companion.store import Store
    from companion.store.clips import ClipGone, ClipStore

    try:
        current = load_settings()
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    store = Store(current.database)
    try:
        job = _find(store, args.job)
    finally:
        store.close()
    clips = ClipStore(current.clip_folder, current.clip_store_mb * 2**20)
    try:
        args.video = clips.require(job.id)
    except ClipGone as exc:
        raise InputFailure(str(exc)) from exc
    if args.name is None:
        args.name = job.name  # the same animation, re-cut (its files are replaced whole)
    return cmd_export(args)
