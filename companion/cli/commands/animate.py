"""`companion animate` and `companion demo`: one job through the job engine, exactly as
the daemon and watched folders run theirs.

Every local check runs first (nothing is spent before they pass); the live models are
checked before the quote; the job's key and body are on disk before the create; the
same command again after a crash or Ctrl-C resumes that job instead of paying again; and
once it is done, the same command again points at its outputs (--again makes a new one)."""

from __future__ import annotations

import argparse
import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from companion.api.formats import FORMAT_NAMES
from companion.api.schema import ExportOptions, ModelsResponse, Selection, Task, VideoOptions
from companion.cli import into_project
from companion.cli.checks import preflight as checks
from companion.cli.errors import InputFailure, UsageError, say
from companion.cli.job_report import report
from companion.cli.progress import Reporter, no_news, reporter
from companion.cli.session import settings as current_settings
from companion.cli.session import with_service
from companion.install import Owner, Placement
from companion.jobs import (
    AnimationAsk,
    Answer,
    ImageReadError,
    JobRequest,
    LocalImage,
    Picture,
    Prompt,
    State,
    already_made,
    has_alpha,
    live_models,
    settle,
    suggestion,
    to_reinstall,
    unfinished,
    what_is_bought,
)
from companion.settings.config import Settings
from companion.settings.endpoint import Endpoint
from companion.store import Job, Store

if TYPE_CHECKING:
    from companion.api.client import Client


@dataclass
class Plan:
    """A checked one-click animation: what it asks for, where its files go."""

    ask: AnimationAsk  # its placement decided when it runs (the project --out lies in)
    out: Path
    name: str
    as_json: bool = False
    timeout: float | None = None
    again: bool = False  # a new job even when this one is done and its outputs in place

    @property
    def formats(self) -> list[str]:
        return [f.value for f in self.ask.export.formats]


def read_image(path: Path, flag: str) -> LocalImage:
    checks.input_file(path, flag)
    try:
        return LocalImage.checked(path)  # decoded whole: a cut-short file is refused here
    except ImageReadError as exc:
        raise InputFailure(f"{flag} {exc}") from exc


def plan_from_args(args: argparse.Namespace) -> Plan:
    """Every check that needs no service, in the order a user fixes them."""
    given = checks.one_click_args(args)
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError(f"--timeout {args.timeout:g}: give seconds above 0")
    out = checks.output_folder(args.out)
    name = checks.base_name(args.name, given.image)
    return Plan(
        ask=checks.animation_ask(args, given, args.prompt, origin="cli"),
        out=out,
        name=name,
        as_json=args.json,
        timeout=args.timeout,
        again=args.again,
    )


def listing(ask: AnimationAsk) -> ModelsResponse | None:
    """The live listing when it decides a default: does the model named make keyed
    videos for this transparent picture, or, with none named, which listed model does
    (for a keyed video asked for, or a transparent picture)? None when nothing hangs on
    it."""
    image, video, export = ask.picture.image, ask.video, ask.export
    asked = video.transparency
    said = asked is not None or "transparent" in export.model_fields_set
    keyed = (asked is not None and asked.mode == "alpha_key") or (
        asked is None and export.transparent.enabled
    )
    if video.model is not None:
        needed = not said and has_alpha(image)
    else:
        needed = keyed if said else has_alpha(image)
    if not needed:
        return None

    async def listing(client: Client, endpoint: Endpoint, settings: Settings) -> ModelsResponse:
        return await live_models(client, settings.home / "cache", endpoint.label)

    return with_service(listing)


def _request(plan: Plan, hashes: list[str], where: Placement | None) -> JobRequest:
    asked = JobRequest.animation(plan.ask.into(where), listing(plan.ask))
    checks.request_has_alpha(asked, plan.ask.picture.image)
    return asked.with_fingerprint(hashes, plan.name, str(plan.out))


def run_plan(plan: Plan) -> int:
    """Check the files, then hand the job to the engine (or resume the earlier one)."""
    picture = plan.ask.picture
    images = [read_image(picture.image, "image")]
    if picture.last_frame:
        images.append(read_image(picture.last_frame, "--last-frame"))
    images += [read_image(p, "--ref") for p in picture.references]
    # Into a Godot or Unity project: the daemon's install (pack unpacked, merged).
    where = into_project.placement(current_settings().database, plan.out)
    request = _request(plan, [i.sha256 for i in images], where)
    formats = request.install_formats or plan.formats
    planned = (
        checks.output_paths(plan.out, plan.name, formats)
        if where is None
        else into_project.planned(where, plan.name, formats)
    )
    checks.never_over_a_source(planned, picture.paths())
    replaced = checks.existing_outputs(planned)
    if not plan.again:
        made = _made_before(str(request.fingerprint), plan.out)
        if made is not None:
            say(
                f"companion: already made by job {made.id[:8]}; outputs in {plan.out} "
                "(add --again to make a new one)"
            )
            return report(made, plan.as_json, charged_before=None)
    started: list[str] = []  # the job this run works on, once it has one
    shown = reporter(plan.as_json)
    charged_before: list[int] = []  # what the job had cost when this run took it up

    async def job(client: Client, endpoint: Endpoint, settings: Settings) -> Job:
        from companion.runtime import open_engine  # loaded once the local checks passed

        store = Store(settings.database)
        try:
            models = await live_models(client, settings.home / "cache", endpoint.label)
            checks.against_models(
                plan.ask.video,
                models,
                has_last_frame=picture.last_frame is not None,
                references=len(picture.references),
                prompt=plan.ask.prompt.text,
            )
            # A job an earlier run left is its own install's to finish: killed between
            # moving a file in and recording it, it claims that file when it resumes.
            resumed = unfinished(store, str(request.fingerprint)) is not None
            if where is not None and not resumed:
                into_project.refuse_conflicts(store, where, plan.name, formats)
            for path in replaced if where is None and not resumed else ():
                refusal = Owner(store, "", plan.name).refusal(path)
                if refusal is not None:
                    free = suggestion(store, "other", plan.out, plan.name, plan.formats)
                    raise UsageError(
                        f"--out: {refusal}; nothing was spent. Give --name {free} (free in "
                        f"{plan.out}), or move the file away, or choose another --out"
                    )
            client.downloader.on_bytes = lambda asset, done, total: shown.update(
                f"downloading {asset}", done / total if total else 1.0, done, total
            )
            async with open_engine(
                client,
                endpoint,
                settings,
                store,
                timeout=plan.timeout,
                on_change=lambda j: _tell(j, endpoint, shown, store),
                on_progress=lambda j, task: progress(task, shown),
            ) as engine:
                earlier = unfinished(store, str(request.fingerprint))
                unpaid_install = to_reinstall(store, str(request.fingerprint))
                if earlier is not None:
                    say(
                        f"companion: resuming job {earlier.id[:8]} ({earlier.state}) from an "
                        "earlier run of this command; nothing is paid twice"
                    )
                    current = earlier
                elif unpaid_install is not None:
                    say(
                        f"companion: job {unpaid_install.id[:8]} of an earlier run of this "
                        "command was paid for but its outputs did not go in; installing "
                        "them now, nothing is paid again"
                    )
                    current = engine.retry(unpaid_install.id)
                else:
                    for path in replaced:
                        verb = "update" if where is not None else "replace"
                        say(f"companion: will {verb} {path}")
                    asked, found = settle(store, engine.clips, request, again=plan.again)
                    say_answer(found)
                    current = engine.submit(asked, name=plan.name, target_dir=plan.out)
                started.append(current.id)
                charged_before.append(store.charged(current.id))
                say(f"companion: job {current.id[:8]} on {endpoint.label}")
                return await engine.run(current.id)
        finally:
            store.close()

    try:
        try:
            done = with_service(job)
        finally:
            shown.close()
        return report(done, plan.as_json, charged_before=charged_before[0])
    except KeyboardInterrupt:
        finished = _done(started[0]) if started else None
        if finished is None:
            raise
        # The work was done when Ctrl-C came: nothing is left to resume.
        say(f"companion: interrupted after job {finished.id[:8]} was done")
        return report(finished, plan.as_json, charged_before=charged_before[0])


def say_answer(found: Answer) -> None:
    """Whether the service is asked again, and why, before anything is spent."""
    if found.source is not None:
        how = "is generating" if found.why == "under_way" else "already generated"
        say(
            f"companion: job {found.source.id[:8]} {how} this (the same picture, prompt and "
            "video options): re-cutting its kept clip here, nothing is spent (add --again "
            "for a new take)"
        )
    elif found.shared is not None:
        say(
            f"companion: a teammate's job {found.shared.job[:8]} already generated this (the "
            "same picture, prompt and video options): re-cutting its shared clip here, "
            "nothing is spent (add --again for a new take)"
        )
    elif found.why in ("evicted", "no_video"):
        say(f"companion: {found.reason()}; it is generated again")


def _made_before(digest: str, out: Path) -> Job | None:
    store = Store(current_settings().database)
    try:
        return already_made(store, digest, out)
    finally:
        store.close()


def _done(job_id: str) -> Job | None:
    store = Store(current_settings().database)
    try:
        job = store.job(job_id)
    finally:
        store.close()
    return job if job.state == State.DONE else None


def progress(task: Task, shown: Reporter) -> None:
    """The service's own stage and progress while the task runs."""
    stage = f"generating ({task.stage})" if task.stage else f"generating ({task.status})"
    shown.update(stage, float(task.progress))


def _tell(job: Job, endpoint: Endpoint, shown: Reporter, store: Store) -> None:
    if job.state == State.QUOTED:
        asked = JobRequest.of(job.request)
        shown.note(f"quote: {what_is_bought(asked.buys, job.quote or 0)} on {endpoint.label}")
        pixel = asked.pixel_note() or asked.pixel_hint()
        if pixel is not None:
            shown.note(pixel)
    elif not no_news(job, store):
        shown.note(f"job {job.id[:8]} {job.state}")


def cmd_animate(args: argparse.Namespace) -> int:
    return run_plan(plan_from_args(args))


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job on a fresh machine: draw a character and animate it in one click,
    against the configured service or, with no key, the embedded sandbox."""
    from companion.media import draw_character

    out = checks.output_folder(args.out)
    image = out / "hero.png"
    if image.is_dir():
        raise UsageError(f"--out {args.out}: hero.png in it is a folder; choose another --out")
    animation = out / "animation"
    if animation.exists() and not animation.is_dir():
        raise UsageError(f"--out {args.out}: 'animation' in it is a file; choose another --out")
    drawn = io.BytesIO()
    draw_character().save(drawn, format="PNG")  # the same bytes every time: a re-run resumes
    if image.exists() and image.read_bytes() != drawn.getvalue():
        raise UsageError(
            f"--out {args.out}: it holds a hero.png the demo did not draw; choose another --out"
        )
    out.mkdir(parents=True, exist_ok=True)
    image.write_bytes(drawn.getvalue())
    say(f"drew {image}")
    # The jobs, the books and the sandbox's state are kept in the home, not in --out.
    say(
        f"companion: its jobs, credits and sandbox live in {current_settings().home} "
        "(set COMPANION_HOME to keep them elsewhere)"
    )
    export = {
        "frame_count": 12,
        "output_width": 256,
        "output_height": 256,
        "transparent": True,
        "output_formats": list(FORMAT_NAMES),
    }
    video = {"duration_seconds": 2, "resolution": "480p", "transparency": {"mode": "alpha_key"}}
    ask = AnimationAsk(
        picture=Picture(image=image),
        prompt=Prompt(text="idle breathing"),
        video=VideoOptions.model_validate(video),
        export=ExportOptions.model_validate(export),
        selection=Selection(),
        origin="cli",
    )
    return run_plan(Plan(ask=ask, name="hero", out=animation))
