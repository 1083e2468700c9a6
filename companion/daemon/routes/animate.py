"""Quote and animate: a form (image in the project or inline, prompt, settings) becomes a
typed job request, priced with the quote id of exactly that form; a paid job is refused
before anything is spent when its quote priced something else or its install would have
to replace a file it may not."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from companion.api.schema.images import sniff_image_type
from companion.daemon import model_fit, quote_context, registry
from companion.daemon.errors import Bad, BadInput, CannotReplace
from companion.daemon.file_work import on_files
from companion.daemon.http.host import Earlier, Prepared
from companion.daemon.http.middleware import reachable, read_body
from companion.daemon.quotes import quote_id
from companion.daemon.schema.quote import (
    EarlierOut,
    PaidBecause,
    PixelArtOut,
    QuoteOut,
    RecutOut,
    Why,
)
from companion.daemon.schema.requests import AnimateIn, ask_of
from companion.install import Placement, confined, default_target, foreseen, planned_writes
from companion.jobs import (
    Answer,
    CharacterPart,
    ImageReadError,
    JobRequest,
    Picture,
    State,
    decode_whole,
    generation_answer,
    made_before,
    settle,
    suggestion,
)
from companion.media import clean_name

if TYPE_CHECKING:
    from companion.daemon.http.host import Host
    from companion.store import Job


class AnimateRoutes:
    def __init__(self, daemon: Host) -> None:
        self.daemon = daemon

    @property
    def _online(self) -> bool:
        """False while the daemon knows the service is away (nothing is asked of it)."""
        reach = self.daemon.reach
        return reach is None or reach.reachable

    def routes(self) -> list[tuple[str, str, Any]]:
        return [
            ("POST", "/api/v1/quote", self.quote),
            ("POST", "/api/v1/animate", self.animate),
        ]

    async def quote(self, request: web.Request) -> web.Response:
        return web.json_response(await self.quote_reply(await read_body(request, AnimateIn)))

    async def animate(self, request: web.Request) -> web.Response:
        return await self.submit_animate(await read_body(request, AnimateIn))

    async def digest(self, body: AnimateIn) -> str:
        """The quote id of body (Bad when body is refused)."""
        return (await self._priced(body))[3]

    async def quote_reply(
        self, body: AnimateIn, new_seed: bool = False, character: CharacterPart | None = None
    ) -> dict[str, Any]:
        """What POST /quote answers for body: the price, and what pressing animate with it
        spends now (nothing when an earlier job of exactly this request answers it instead).
        new_seed: a generation made again (its own lineage), which never looks for one;
        character: the move of a character's set body is. Bad when body is refused."""
        job_request, name, target, digest, image_sha256 = await self._priced(body, character)
        reachable(self.daemon.reach)
        writes, clashes, replaced, free = await on_files(self._foresee, job_request, name, target)
        credits = await self.daemon.engine.quote(job_request, name)
        again = body.again or new_seed  # a new take never looks for an earlier one
        marked, made = await asyncio.to_thread(
            made_before, self.daemon.store, job_request, name, target, image_sha256
        )
        found = Answer("none")
        if again:
            made = None
        elif made is None:  # no job of exactly this: is its generation paid for already?
            found = await asyncio.to_thread(
                generation_answer, self.daemon.store, self.daemon.engine.clips, marked.generation
            )
        earlier = None
        if made is not None:
            earlier = EarlierOut(id=made.id, state=str(made.state), why=_why(made.state))
        elif found.free:  # one's own generation, or a teammate's (done)
            state = str(found.source.state) if found.source is not None else "done"
            earlier = EarlierOut(id=str(found.source_id), state=state, why="recut")
        spends = credits if earlier is None else 0
        return QuoteOut(
            credits=credits,
            buys=job_request.buys,
            spends=spends,
            earlier=earlier,
            recut=_recut_out(marked, found),
            paid_because=_paid_because(found, again) if earlier is None else None,
            pixel_art=_pixel_out(job_request),
            quote_id=digest,
            name=name,
            target_dir=str(target),
            writes=[str(p) for p in writes],
            conflicts=clashes,
            replaces=replaced if made is None else [],  # a job that answers replaces nothing
            name_suggestion=free,
            # held to the budget by what it spends: a press that spends nothing waits for none
            **await quote_context.context(self.daemon.engine, spends),
        ).model_dump()

    async def submit_animate(
        self, body: AnimateIn, lineage: dict[str, str] | None = None
    ) -> web.Response:
        """A paid job for body; refused (409 STALE_QUOTE, nothing spent) when its quote
        id priced something else."""
        ready = await self.prepare_animate(body, lineage)
        if isinstance(ready, Earlier):
            return self.answer(ready.job, ready.status)
        return self.answer(self.start_animate(ready), 202)

    def answer(self, job: Job, status: int) -> web.Response:
        return web.json_response(self.daemon.job_out(job).model_dump(mode="json"), status=status)

    async def prepare_animate(
        self,
        body: AnimateIn,
        lineage: dict[str, str] | None = None,
        character: CharacterPart | None = None,
    ) -> Prepared | Earlier:
        """Every check of a paid job for body, nothing created yet: the job ready to start,
        or an earlier job that answers it; Bad when it is refused. A multi-job action
        prepares every member before it starts the first."""
        job_request, name, target, digest, image_sha256 = await self._priced(body, character)
        job_request = job_request.descended(lineage or {})
        daemon = self.daemon
        length = await model_fit.length_refusal(
            daemon.engine, daemon.home / "cache", daemon.service_label, body.video, self._online
        )
        if length is not None:
            raise Bad(400, "INVALID", length)
        if body.quote_id is not None and body.quote_id != digest:
            raise Bad(
                409,
                "STALE_QUOTE",
                "quote_id: the settings or the image changed since that quote; quote again "
                "(nothing was spent)",
            )
        # The same request again is not paid again (unless again: true). A job made or
        # under way answers it before its files are looked at: one killed between moving
        # a file in and recording it claims that file when it resumes.
        earlier: Job | None = None
        if not lineage:
            job_request, earlier = await asyncio.to_thread(
                made_before, daemon.store, job_request, name, target, image_sha256
            )
            if (
                earlier is not None
                and not body.again
                and _why(earlier.state) != "paid_not_installed"
            ):
                return Earlier(earlier, 200)
        _, clashes, _, free = await on_files(self._foresee, job_request, name, target)
        if clashes and body.replace:  # said explicitly: each is moved aside, never lost
            try:
                replace = await on_files(quote_context.agreed, clashes)
            except CannotReplace as exc:
                raise Bad(409, "CONFLICT", str(exc)) from exc
            job_request = job_request.model_copy(update={"replace": replace})
        elif clashes:
            more = f" (and {len(clashes) - 1} more)" if len(clashes) > 1 else ""
            message = (
                f"{clashes[0]['reason']}{more}: the install would have to replace it, and "
                f"it is never replaced unasked. Nothing was spent: give another name ({free!r} "
                'is free in that folder), move the file away, or send "replace": true to '
                "have it moved aside"
            )
            raise Bad(409, "CONFLICT", message, name_suggestion=str(free))
        if earlier is not None and not body.again:
            # Paid for, its outputs never went in: installed now, not paid again.
            earlier = daemon.engine.retry(earlier.id)
            daemon.enqueue(earlier)
            daemon.changed(earlier)
            return Earlier(earlier, 202)
        if not lineage:
            # Its generation paid for already (or under way): a free re-cut of the clip.
            job_request, _ = await asyncio.to_thread(
                settle, daemon.store, daemon.engine.clips, job_request, again=body.again
            )
        return Prepared(job_request, name, target)

    def start_animate(self, ready: Prepared, approved: bool = False) -> Job:
        """The job prepared, made and queued (its create is what charges, and none is sent
        for a re-cut of a kept clip). approved: its price was agreed to already (a set's
        one approval), so no budget holds it."""
        daemon = self.daemon
        job = daemon.engine.submit(
            ready.request, name=ready.name, target_dir=ready.target, priority=0
        )
        if approved:
            job = daemon.store.update_job(job.id, approved=1)
        daemon.enqueue(job)
        daemon.changed(job)
        return job

    async def _priced(
        self, body: AnimateIn, character: CharacterPart | None = None
    ) -> tuple[JobRequest, str, Path, str, str]:
        """The job request, the quote id of exactly this body, and the picture's SHA-256
        (read once: the quote id and the made-once check both need it)."""
        job_request, name, target, image_sha256 = await self.request_for(body, character)
        return job_request, name, target, quote_id(body, image_sha256), image_sha256

    async def request_for(
        self, body: AnimateIn, character: CharacterPart | None = None
    ) -> tuple[JobRequest, str, Path, str]:
        """The job request, its name and target, and the picture's SHA-256 (from the one
        read that also checked it decodes)."""
        project = registry.find(self.daemon.store, body.project_root)
        if project is None:
            raise Bad(
                403,
                "PROJECT_NOT_REGISTERED",
                "register the project first: companion projects add ROOT, or POST /api/v1/projects",
            )
        root = Path(project["root"])
        if body.image_path is not None:
            try:  # read and decoded whole: off the event loop
                image, image_sha256 = await asyncio.to_thread(
                    quote_context.picture, root, "image_path", body.image_path
                )
            except BadInput as exc:
                raise Bad(400, "INVALID", str(exc)) from exc
        else:
            # Base64 decoding, hashing and writing up to 16 MiB: off the event loop
            image, image_sha256 = await asyncio.to_thread(
                self._store_inline, body.image_base64 or ""
            )
        engine = str(project.get("engine", "other"))
        target = confined(
            root, body.target_folder or project.get("target") or default_target(engine)
        )
        if target is None:
            raise Bad(400, "INVALID", "target_folder: must stay inside the project")
        refusal = registry.engine_refusal(engine, root, target)
        if refusal:
            raise Bad(400, "INVALID", f"target_folder: {refusal}")
        unusable = await asyncio.to_thread(registry.target_refusal, root, target)
        if unusable:  # found out here, not as a failed job after the charge
            raise Bad(400, "INVALID", unusable)
        if not body.prompt.strip():
            # The service would make (and charge for) a video of no asked-for motion; the
            # command line and dropped files refuse it too.
            raise Bad(
                400,
                "INVALID",
                'prompt: say what should move (e.g. "idle breathing", "walk cycle"); '
                "nothing was quoted or spent",
            )
        name = body.name or clean_name(image.stem)
        try:
            last_frame, references = await asyncio.to_thread(quote_context.extra_images, root, body)
        except BadInput as exc:
            raise Bad(400, "INVALID", str(exc)) from exc
        daemon = self.daemon
        models = await model_fit.listing_for(
            daemon.engine, daemon.home / "cache", daemon.service_label, body.video, self._online
        )
        picture = Picture(image=image, last_frame=last_frame, references=references)
        where = Placement(engine, root, target)
        ask = ask_of(body, picture, where, negative=body.negative_prompt, character=character)
        # It reads the picture (is it transparent?): off the event loop.
        request = await asyncio.to_thread(JobRequest.animation, ask, models)
        return request, name, target, image_sha256

    def _store_inline(self, text: str) -> tuple[Path, str]:
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise Bad(400, "INVALID", "image_base64: not valid Base64") from exc
        mime = sniff_image_type(data)
        if mime is None:
            raise Bad(415, "UNSUPPORTED_MEDIA_TYPE", "image_base64: not PNG, JPEG or WebP")
        try:  # a cut-short picture is refused here, before anything is priced or spent
            decode_whole(data, mime, "image_base64")
        except ImageReadError as exc:
            raise Bad(400, "INVALID", f"{exc} (nothing was spent)") from exc
        folder = self.daemon.home / "inbox"
        folder.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256(data).hexdigest()
        path = folder / f"{digest[:32]}.img"
        path.write_bytes(data)
        return path, digest

    def _foresee(
        self, job_request: JobRequest, name: str, target: Path
    ) -> tuple[list[Path], list[dict[str, str]], list[dict[str, str]], str | None]:
        """The files the install will write, those it may not replace, those of an earlier
        job of this name it replaces unasked (unchanged since), and (when there are
        conflicts) the free name to give instead."""
        engine = job_request.install.engine if job_request.install else "other"
        formats = job_request.install_formats or []
        writes = planned_writes(engine, target, name, formats)
        store = self.daemon.store
        clashes, earlier = foreseen(store, name, writes, engine)
        free = suggestion(store, engine, target, name, formats) if clashes else None
        return writes, clashes, earlier, free


def _why(state: str) -> Why:
    """Why animate answers an earlier job instead of paying (see made_before)."""
    if state == State.DONE:
        return "made"  # done, its outputs still in place
    if state in (State.FAILED, State.CANCELLED):
        return "paid_not_installed"  # installed again, free
    return "under_way"  # animate joins it


def _recut_out(request: JobRequest, found: Answer) -> RecutOut | None:
    """What a free re-cut of the answering generation's clip makes, said before a press."""
    if not found.free:
        return None
    export = request.export
    return RecutOut(
        source=str(found.source_id),
        frames=export.get("frame_count"),
        fps=export.get("fps"),
        width=export.get("output_width"),
        height=export.get("output_height"),
        formats=list(request.install_formats or []),
        finishing=[k for k, on in (request.local_export or {}).items() if on is True],
    )


def _paid_because(found: Answer, again: bool) -> PaidBecause:
    """Why the press pays: a new take asked for, or no kept clip answers (none, evicted)."""
    if again:
        return PaidBecause(why="again", note="a new take was asked for")
    evicted = found.evicted.id if found.evicted is not None else None
    return PaidBecause(why="none" if evicted is None else "evicted", job=evicted,
                       note=found.reason())  # fmt: skip


def _pixel_out(request: JobRequest) -> PixelArtOut | None:
    """The pixel art a quote says its frames are made as."""
    pixel, note = request.pixel_art, request.pixel_note()
    if pixel is None or note is None:
        return None
    return PixelArtOut(palette=list(pixel["palette"]), grid=int(pixel.get("grid", 1)), note=note)
