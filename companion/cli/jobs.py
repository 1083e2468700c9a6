"""`companion jobs ...` and the books behind `companion credits`."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.api.client import Client
from companion.jobs.engine import Budget, Engine, JobFailed
from companion.jobs.team import open_account
from companion.settings.config import ConfigError, Settings, load_settings
from companion.settings.endpoint import open_endpoint
from companion.store import Job, Store
from companion.store.account import TeamUnavailable


def _settings() -> Settings:
    from companion.cli.remote import RemoteError

    try:
        return load_settings()
    except ConfigError as exc:
        raise RemoteError(str(exc), 2) from exc


def _store(settings: Settings) -> Store:
    return Store(settings.database)


def _with_engine(args: argparse.Namespace, action: Callable[[Engine], Any]) -> Any:
    from companion.cli.remote import RemoteError, stderr

    settings = _settings()
    store = _store(settings)
    budget = Budget(settings.budget_per_job, settings.budget_per_day)

    async def main() -> Any:
        async with open_endpoint(settings) as endpoint:
            if endpoint.sandbox:
                stderr.print("companion: no API key configured; using the embedded sandbox")
            async with (
                Client(endpoint.base_url, endpoint.api_key) as client,
                open_account(settings, store, endpoint.base_url, client.pacer) as account,
            ):
                engine = Engine(
                    store,
                    client,
                    endpoint.base_url,
                    budget=budget,
                    timeout=settings.timeout_seconds,
                    on_change=lambda j: stderr.print(f"job {j.id[:8]} {j.state}"),
                    account=account,
                )
                return await action(engine)

    try:
        return asyncio.run(main())
    except (JobFailed, TeamUnavailable) as exc:
        raise RemoteError(str(exc)) from exc
    finally:
        store.close()


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
                "format": a.format,
                "file": a.file_name,
                "bytes": a.byte_size,
                "installed": a.installed_path,
            }
            for a in store.assets(job.id)
        ],
    }


def _find(store: Store, prefix: str) -> Job:
    from companion.cli.remote import RemoteError

    matches = [j for j in store.jobs() if j.id.startswith(prefix)]
    if len(matches) != 1:
        raise RemoteError(f"no single job matches {prefix!r}; see: companion jobs list", 2)
    return matches[0]


def cmd_add(args: argparse.Namespace) -> int:
    from companion.cli.main import export_options_from_args
    from companion.cli.remote import RemoteError
    from companion.media.export import safe_name

    options, selection = export_options_from_args(args)
    if not args.image.is_file():
        raise RemoteError(f"{args.image}: no such file", 2)
    request = {
        "image": str(args.image.resolve()),
        "prompt": args.prompt,
        "last_frame": str(args.last_frame.resolve()) if args.last_frame else None,
        "references": [str(p.resolve()) for p in args.ref],
        "video": {
            "duration_seconds": args.seconds,
            "resolution": args.resolution,
            "transparency": {"mode": "alpha_key"} if options.transparent.enabled else None,
        },
        "export": options.model_dump(mode="json"),
        "selection": selection.model_dump(mode="json"),
    }
    settings = _settings()
    store = _store(settings)
    try:
        job = store.add_job(
            "animation",
            args.name or safe_name(args.image.stem),
            request,
            priority=0 if args.priority == "editor" else 1,
            target_dir=str(args.target.resolve()),
        )
    finally:
        store.close()
    print(job.id)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    jobs: list[Job] = _with_engine(args, lambda engine: engine.drain())
    for job in jobs:
        print(f"{job.id}  {job.state:<18} {job.name}")
    return 0 if all(j.state in ("done", "awaiting_approval") for j in jobs) else 1


def cmd_list(args: argparse.Namespace) -> int:
    store = _store(_settings())
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
    store = _store(_settings())
    try:
        print(json.dumps(_job_json(store, _find(store, args.job)), indent=2))
    finally:
        store.close()
    return 0


def _control(verb: str) -> Callable[[argparse.Namespace], int]:
    def command(args: argparse.Namespace) -> int:
        settings = _settings()
        store = _store(settings)
        job_id = _find(store, args.job).id
        store.close()

        async def act(engine: Engine) -> Job:
            if verb == "cancel":
                return await engine.cancel(job_id)
            if verb == "approve":
                engine.approve(job_id)
            else:
                engine.retry(job_id)
            return await engine.run(job_id)

        job = _with_engine(args, act)
        print(f"{job.id}  {job.state}")
        return 0

    return command


def books(settings: Settings) -> dict[str, Any]:
    """Spend today, this month and per job, from the local ledger."""
    if not settings.database.exists():
        return {"today": 0, "month": 0, "jobs": []}
    store = _store(settings)
    try:
        moment = datetime.now(UTC)
        today = moment.strftime("%Y-%m-%dT00:00:00Z")
        month = moment.strftime("%Y-%m-01T00:00:00Z")
        per_job = [
            {"job": j.id, "name": j.name, "state": j.state, "credits": store.charged(j.id)}
            for j in store.jobs()
        ]
        return {
            "today": store.charged(since=today),
            "month": store.charged(since=month),
            "jobs": per_job,
        }
    finally:
        store.close()


def add_jobs_commands(
    commands: Any, add_export_options: Callable[[argparse.ArgumentParser], None]
) -> None:
    jobs = commands.add_parser("jobs", help="the local job queue: add, run, list, show, control")
    verbs = jobs.add_subparsers(dest="verb", required=True)
    add = verbs.add_parser("add", help="queue a one-click animation for a project folder")
    add.add_argument("image", type=Path)
    add.add_argument("--prompt", required=True)
    add.add_argument("--target", type=Path, required=True, help="folder the outputs go into")
    add.add_argument("--priority", choices=["editor", "folder"], default="folder")
    add.add_argument("--last-frame", type=Path)
    add.add_argument("--ref", type=Path, action="append", default=[])
    add.add_argument("--seconds", type=float)
    add.add_argument("--resolution")
    add_export_options(add)
    add.set_defaults(handler=cmd_add)
    verbs.add_parser("run", help="run every unfinished job (resumes after a crash)").set_defaults(
        handler=cmd_run
    )
    verbs.add_parser("list", help="every job and its state").set_defaults(handler=cmd_list)
    for verb, text, handler in (
        ("show", "a job, its ledger and outputs", cmd_show),
        ("cancel", "cancel a job (remotely too)", _control("cancel")),
        ("retry", "retry a job that never reached the service", _control("retry")),
        ("approve", "approve a job held by a budget", _control("approve")),
    ):
        parser = verbs.add_parser(verb, help=text)
        parser.add_argument("job", help="a job id or its first characters")
        parser.set_defaults(handler=handler)
