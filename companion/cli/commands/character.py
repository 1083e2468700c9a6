"""`companion character IMAGE --move NAME=PROMPT ...`: a character's moves from one
picture, priced as one set and wired into the engine (companion.jobs.characters.moves).

Every local check of every move runs first (names, the picture, the folder, the files
each move and the character's own SpriteFrames would touch); then one quote for the set
(each move's price, 0 for a move made already or whose generation is kept), held to the
budgets once (--approve lets a set over one go on); then every move runs through the job
engine at once, each paid once ever: the same command again spends nothing, a move
added pays only for itself."""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.api.schema import VideoOptions
from companion.cli import into_project
from companion.cli.checks import preflight as checks
from companion.cli.commands.animate import listing, progress, read_image
from companion.cli.errors import AwaitingApproval, UsageError, say
from companion.cli.job_report import outcome, summary
from companion.cli.progress import reporter
from companion.cli.session import settings as current_settings
from companion.cli.session import with_service
from companion.install import Owner, Placement, character_files, character_refusal
from companion.jobs import (
    FINAL,
    BadMove,
    Move,
    MoveJob,
    SetQuote,
    State,
    character_name,
    check_moves,
    formats_refusal,
    live_models,
    made_before,
    move_jobs,
    quote_set,
    submit_set,
    what_is_bought,
)
from companion.settings.config import Settings
from companion.settings.endpoint import Endpoint
from companion.store import Job, Store

if TYPE_CHECKING:
    from companion.api.client import Client


@dataclass(frozen=True)
class CharacterPlan:
    """A checked set: the moves' requests, where their files go, the image's digest."""

    name: str
    out: Path
    jobs: list[MoveJob]
    video: VideoOptions  # as asked, for the checks against the live models
    where: Placement | None
    image_sha256: str
    as_json: bool
    timeout: float | None
    again: bool
    approve: bool


def parse_moves(given: list[str], looping: list[str], once: list[str]) -> list[Move]:
    """--move NAME=PROMPT, each once; --loop NAME and --no-loop NAME name moves given."""
    moves: list[Move] = []
    for text in given:
        name, sep, prompt = text.partition("=")
        if not sep or not name.strip():
            raise UsageError(
                f"--move {text!r}: give NAME=PROMPT, e.g. --move idle='idle breathing'"
            )
        moves.append(Move.asked(name.strip(), prompt.strip()))
    names = {m.name for m in moves}
    for flag, listed in (("--loop", looping), ("--no-loop", once)):
        unknown = [n for n in listed if n not in names]
        if unknown:
            raise UsageError(
                f"{flag} {unknown[0]}: no --move of that name (moves: {', '.join(names)})"
            )
    both = set(looping) & set(once)
    if both:
        raise UsageError(f"--loop and --no-loop both name {sorted(both)[0]}; give one")
    return [
        m.model_copy(update={"loop": m.name in looping})
        if m.name in looping or m.name in once
        else m
        for m in moves
    ]


def plan_from_args(args: argparse.Namespace) -> CharacterPlan:
    """Every check that needs no service, in the order a user fixes them."""
    moves = parse_moves(args.move, args.looping, args.no_loop)
    try:
        name = character_name(args.name, args.image)
        check_moves(name, moves)
    except BadMove as exc:
        flag = "--name" if exc.index is None and args.name else "--move"
        said = "" if exc.index is None else f" {moves[exc.index].name}"
        raise UsageError(f"{flag}{said}: {exc}") from exc
    prompts = {f"--move {m.name}": m.prompt for m in moves}
    given = checks.one_click_args(args, prompts=prompts)
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError(f"--timeout {args.timeout:g}: give seconds above 0")
    out = checks.output_folder(args.out)
    image = read_image(given.image, "image")
    where = into_project.placement(current_settings().database, out)
    ask = checks.animation_ask(args, given, placement=where, origin="cli")  # the set's
    # The formats and the character's own files are checked first: they need no
    # service. Only then is the listing read (which listed model keys), and the moves
    # built with it: a move's files are checked against the request it will send, whose
    # fingerprint finds the job an earlier run of the set left (listing is free).
    jobs = move_jobs(name, moves, ask)
    _check_set(name, where, jobs)
    models = listing(ask)
    if models is not None:
        jobs = move_jobs(name, moves, ask, models)
    _check_files(out, where, jobs, given.image, image.sha256)
    checks.request_has_alpha(jobs[0].request, given.image)
    return CharacterPlan(
        name=name,
        out=out,
        jobs=jobs,
        video=given.video,
        where=where,
        image_sha256=image.sha256,
        as_json=args.json,
        timeout=args.timeout,
        again=args.again,
        approve=args.approve,
    )


def _check_set(name: str, where: Placement | None, jobs: list[MoveJob]) -> None:
    """The formats the engine wires, and the character's own scene, before any spend."""
    formats = jobs[0].request.install_formats or []
    unwired = formats_refusal(where.engine, formats) if where is not None else None
    if unwired is not None:
        raise UsageError(f"--formats: {unwired}")
    if where is not None and where.engine == "godot":
        refused = character_refusal(where.target, name)
        if refused is not None:
            raise UsageError(f"--out: {refused}; nothing was spent")


def _check_files(
    out: Path,
    where: Placement | None,
    jobs: list[MoveJob],
    image: Path,
    image_sha256: str,
) -> None:
    """Every file of every move checked before any spend. A move an earlier run of the
    set already has a job for is that job's to finish (a run killed mid-install left
    files in place its install claims when it resumes)."""
    formats = jobs[0].request.install_formats or []
    store = Store(current_settings().database)
    try:
        for job in jobs:
            if made_before(store, job.request, job.name, out, image_sha256)[1] is not None:
                continue
            if where is not None:
                planned = into_project.planned(where, job.name, formats)
                into_project.refuse_conflicts(store, where, job.name, formats)
            else:
                planned = checks.output_paths(out, job.name, formats)
                for path in checks.existing_outputs(planned):
                    refusal = Owner(store, "", job.name).refusal(path)
                    if refusal is not None:
                        raise UsageError(
                            f"--out: {refusal}; nothing was spent. Give another --name, "
                            "move the file away, or choose another --out"
                        )
            checks.never_over_a_source(planned, [image])
    finally:
        store.close()


def _say_quote(plan: CharacterPlan, quote: SetQuote, label: str) -> None:
    for priced in quote.moves:
        earlier = priced.earlier
        if earlier is not None and earlier.state == State.DONE:
            why = f"already made by job {earlier.id[:8]}"
        elif earlier is not None and earlier.state in FINAL:
            why = f"paid for by job {earlier.id[:8]}; its files go in again, free"
        elif earlier is not None:
            why = f"job {earlier.id[:8]} of an earlier run, resumed ({earlier.state})"
        elif priced.answer.free:
            why = f"re-cut of job {str(priced.answer.source_id)[:8]}'s kept clip"
        else:
            why = what_is_bought(priced.job.request.buys, priced.credits)
        loop = "loops" if priced.job.move.loop else "plays once"
        say(f"  {priced.job.move.name:<12} {priced.spends:>6} credits  ({why}; {loop})")
    say(
        f"companion: {plan.name}: {len(quote.moves)} moves, {quote.spends} credits to spend "
        f"now on {label} (made anew: {quote.credits})"
    )


async def _run_set(
    plan: CharacterPlan, client: Client, endpoint: Endpoint, settings: Settings
) -> tuple[SetQuote, list[tuple[Job, int]]]:
    from companion.runtime import open_engine  # loaded once the local checks passed

    store = Store(settings.database)
    shown = reporter(plan.as_json)
    try:
        models = await live_models(client, settings.home / "cache", endpoint.label)
        for job in plan.jobs:
            checks.against_models(
                plan.video,
                models,
                has_last_frame=False,
                references=0,
                prompt=job.move.prompt,
            )
        async with open_engine(
            client,
            endpoint,
            settings,
            store,
            timeout=plan.timeout,
            on_progress=lambda j, task: progress(task, shown),
        ) as engine:
            quote = await quote_set(
                engine, plan.jobs, plan.out, plan.image_sha256, again=plan.again
            )
            _say_quote(plan, quote, endpoint.label)
            over = quote.over(engine)
            if over and not plan.approve:
                raise AwaitingApproval(
                    f"{plan.name}: {quote.spends} credits is over a budget in config.yaml; "
                    "nothing was spent. Run the same command with --approve to make the "
                    "set, paying that"
                )
            started = submit_set(engine, quote, plan.out, approved=over, again=plan.again)
            before = [store.charged(job.id) for job, _ in started]
            limits = (await client.refresh_limits()).limits
            gate = asyncio.Semaphore(max(1, limits.concurrency + limits.queue))

            async def one(job: Job) -> Job:
                async with gate:
                    return await engine.run(job.id)

            done = await asyncio.gather(*(one(job) for job, _ in started))
            return quote, list(zip(done, before, strict=True))
    finally:
        shown.close()
        store.close()


def run_plan(plan: CharacterPlan) -> int:
    async def go(
        client: Client, endpoint: Endpoint, settings: Settings
    ) -> tuple[SetQuote, list[tuple[Job, int]]]:
        return await _run_set(plan, client, endpoint, settings)

    quote, ran = with_service(go)
    moves: list[dict[str, Any]] = []
    for priced, (job, before) in zip(quote.moves, ran, strict=True):
        said = summary(job, before)
        move = priced.job.move
        # "loop" is whether the move loops; the span --seamless chose (and its seam) is
        # "seamless", so one cannot hide the other.
        cut = said.pop("loop", None)
        moves.append({"move": move.name, "loop": move.loop, "quoted": priced.spends, **said})
        if cut is not None:
            moves[-1]["seamless"] = cut
    frames, scene = character_files(plan.out, plan.name)
    result = {
        "character": plan.name,
        "quoted": quote.spends,
        "credits": quote.credits,
        "spent_now": sum(m["spent_now"] for m in moves),
        "frames": str(frames) if frames.exists() else None,
        "scene": str(scene) if scene.exists() else None,
        "moves": moves,
    }
    if plan.as_json:
        print(json.dumps(result))
    else:
        for m in moves:
            say(f"  {m['move']:<12} {m['state']}; spent {m['spent_now']} credits")
        say(f"companion: {plan.name}: spent {result['spent_now']} credits")
        for path in (result["frames"], result["scene"]):
            if path:
                print(f"  {path}")
    for job, _ in ran:
        outcome(job)
    return 0


def cmd_character(args: argparse.Namespace) -> int:
    return run_plan(plan_from_args(args))
