"""`companion jobs ...`: the local job queue the daemon and watched folders share."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from companion.cli import into_project
from companion.cli.checks import preflight as checks
from companion.cli.commands.animate import listing
from companion.cli.commands.jobs_books import find
from companion.cli.errors import CliError, InputFailure, say
from companion.cli.progress import no_news
from companion.cli.session import settings as load
from companion.cli.session import with_service
from companion.install import sha256_of
from companion.jobs import FINAL, JobFailed, JobRequest, State, settle, submit
from companion.settings.config import Settings
from companion.settings.endpoint import Endpoint
from companion.store import Job, Store
from companion.store.clips import ClipStore

if TYPE_CHECKING:
    from companion.api.client import Client
    from companion.api.schema import ModelsResponse
    from companion.jobs import AnimationAsk, Engine

T = TypeVar("T")
log = logging.getLogger("companion.cli")


def _with_engine(action: Callable[[Engine], Awaitable[T]]) -> T:
    async def job(client: Client, endpoint: Endpoint, settings: Settings) -> T:
        from companion.runtime import open_engine  # not for jobs add, which queues only

        store = Store(settings.database)
        try:
            async with open_engine(
                client,
                endpoint,
                settings,
                store,
                on_change=lambda j: None if no_news(j, store) else say(f"job {j.id[:8]} {j.state}"),
            ) as engine:
                return await action(engine)
        finally:
            store.close()

    try:
        return with_service(job)
    except JobFailed as exc:
        raise InputFailure(str(exc)) from exc


def cmd_add(args: argparse.Namespace) -> int:
    given = checks.one_click_args(args)
    target = checks.output_folder(args.target, "--target")
    name = checks.base_name(args.name, given.image)
    formats = [f.value for f in given.options.formats]
    checks.never_over_a_source(checks.output_paths(target, name, formats), given.picture.paths())
    # Into a Godot or Unity project: installed the engine's way, as the daemon's are.
    where = into_project.placement(load().database, target, "--target")
    ask = checks.animation_ask(args, given, args.prompt, placement=where)
    request = JobRequest.animation(ask, _listing_if_reached(ask))
    checks.request_has_alpha(request, given.image)
    hashes = [sha256_of(p) for p in ask.picture.paths()]
    request = request.with_fingerprint(hashes, name, str(target))
    store = Store(load().database)
    try:
        if where is not None:  # the user's own files there: refused before it is queued
            into_project.refuse_conflicts(store, where, name, request.install_formats or [])
        # Its generation paid for already (clip kept, or under way): a free re-cut of it.
        clips = ClipStore.of(load())
        request, found = settle(store, clips, request)
        if found.source is not None:
            say(f"companion: job {found.source.id[:8]} made this generation; queued as a "
                "free re-cut of its kept clip")  # fmt: skip
        job = submit(
            store,
            request,
            name=name,
            target_dir=target,
            priority=0 if args.priority == "editor" else 1,
        )
    finally:
        store.close()
    print(job.id)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    jobs: list[Job] = _with_engine(lambda engine: engine.drain())
    for job in jobs:
        print(f"{job.id}  {job.state:<18} {job.name}")
    return 0 if all(j.state in ("done", "awaiting_approval") for j in jobs) else 1


def cmd_control(args: argparse.Namespace) -> int:
    store = Store(load().database)
    try:
        job_id = find(store, args.job).id
    finally:
        store.close()
    verb = args.verb

    async def act(engine: Engine) -> Job:
        if verb == "cancel":
            return _cancelled(engine.store.job(job_id), await engine.cancel(job_id))
        try:
            if verb == "approve":
                engine.approve(job_id)
            else:
                engine.retry(job_id)
        except JobFailed as exc:
            raise CliError(str(exc), 2) from exc
        return await engine.run(job_id)

    job = _with_engine(act)
    print(f"{job.id}  {job.state}")
    if verb == "cancel" and job.error:
        say(f"companion: {job.error}")
    return 0


def _cancelled(before: Job, after: Job) -> Job:
    """A cancel that changed nothing says why, with a non-zero exit."""
    short = before.id[:8]
    if before.state in FINAL:
        raise CliError(f"job {short} is already {before.state}; there is nothing to cancel", 1)
    if after.state == State.CREATING:
        raise CliError(
            f"job {short} is being created at the service and cannot be stopped until it "
            "has a task there; run companion jobs run, then cancel it while it runs",
            1,
        )
    if after.state == State.RUNNING:
        say(
            f"companion: cancel asked for job {short} at the service; companion jobs run "
            "collects whatever it made"
        )
    return after


def _listing_if_reached(ask: AnimationAsk) -> ModelsResponse | None:
    """Which listed model keys, as animate has it; but a job is queued without the
    service (it may be away, or not set up yet), so where the listing cannot be had the
    request names no model and the service decides when the job runs."""
    from companion import CompanionError

    try:
        return listing(ask)
    except (CompanionError, OSError) as exc:
        log.info("jobs add: the model listing could not be read (%s); queued without it", exc)
        return None
