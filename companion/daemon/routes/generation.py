"""The Generations panel's actions on one job: generate again (new seed, new quote),
variations (the total quoted first), a free re-cut of the kept video, a contact sheet of
it, import again, remove the job's own files, and where its files are."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from companion.api.schema import ExportOptions, Selection
from companion.daemon import generation_checks, quote_context, registry
from companion.daemon.errors import Bad, CannotReplace
from companion.daemon.file_work import on_files
from companion.daemon.generations import project_of
from companion.daemon.http.host import Earlier
from companion.daemon.http.middleware import read_body
from companion.daemon.schema import bodies
from companion.daemon.schema.requests import (
    AgainIn,
    AnimateIn,
    ContactSheetIn,
    ImportIn,
    RecutIn,
    VariationsIn,
)
from companion.install import Owner, Placement, confined, conflicts, planned_writes
from companion.jobs import JobRequest, paid_not_installed
from companion.media import MediaError
from companion.store import Job, Store
from companion.store.errors import ClipGone

if TYPE_CHECKING:
    from companion.daemon.http.host import Host


def _clashes(
    store: Store, engine: str, target: Path, name: str, request: JobRequest
) -> list[dict[str, str]]:
    """The user's files a re-cut into target under name would have to replace."""
    writes = planned_writes(engine, target, name, request.install_formats or [])
    return conflicts(store, name, writes)


class GenerationRoutes:
    def __init__(self, daemon: Host) -> None:
        self.daemon = daemon
        self._sheets = asyncio.Semaphore(1)

    def routes(self) -> list[tuple[str, str, Any]]:
        base = "/api/v1/generations/{job_id}"
        return [
            ("POST", f"{base}/again", self.again),
            ("POST", f"{base}/variations", self.variations),
            ("POST", f"{base}/recut", self.recut),
            ("POST", f"{base}/import", self.import_again),
            ("POST", f"{base}/contact_sheet", self.contact_sheet),
            ("GET", f"{base}/contact_sheet.png", self.contact_sheet_png),
            ("POST", f"{base}/remove_files", self.remove_files),
            ("GET", f"{base}/reveal", self.reveal),
        ]

    def _job(self, request: web.Request) -> Job:
        try:
            return self.daemon.store.job(request.match_info["job_id"])
        except KeyError as exc:
            raise web.HTTPNotFound(reason="no such generation") from exc

    # -- paid: again and variations, quoted first --------------------------------------

    def _settings(self, job: Job, seed: int, name: str | None = None) -> AnimateIn:
        """The form as the job was sent, with another seed."""
        request = job.request
        install = request.get("install") or {}
        root = Path(str(install.get("root", "")))
        image = Path(str(request["image"]))
        target = Path(job.target_dir) if job.target_dir else None
        given: dict[str, Any] = {
            "project_root": str(root),
            "prompt": request.get("prompt") or "",
            "video": {**(request.get("video") or {}), "seed": seed},
            "export": request.get("export") or {},
            "selection": request.get("selection") or {},
            "name": name or job.name,
        }
        if request.get("negative_prompt"):
            given["negative_prompt"] = request["negative_prompt"]
        extra = [request.get("last_frame"), *(request.get("references") or [])]
        if any(p and not Path(str(p)).is_relative_to(root) for p in extra):
            raise ValueError("its last frame or references are not in the project")
        if request.get("last_frame"):
            given["last_frame_path"] = str(Path(str(request["last_frame"])).relative_to(root))
        given["reference_paths"] = [
            str(Path(str(p)).relative_to(root)) for p in request.get("references") or []
        ]
        if image.is_relative_to(root):
            given["image_path"] = str(image.relative_to(root))
        else:  # an inline image, kept in the daemon's inbox
            given["image_base64"] = base64.b64encode(image.read_bytes()).decode()
        if target is not None and target.is_relative_to(root):
            given["target_folder"] = str(target.relative_to(root))
        return AnimateIn.model_validate(given)

    async def again(self, request: web.Request) -> web.Response:
        job = self._job(request)
        body = await read_body(request, AgainIn, bodies.SMALL_BODY)
        seed = body.seed if body.seed is not None else secrets.randbelow(2**31)
        try:
            settings = await asyncio.to_thread(self._settings, job, seed)
        except (OSError, ValueError) as exc:
            raise Bad(409, "CANNOT_REPEAT", f"the generation cannot be sent again: {exc}") from exc
        if body.quote_only:
            reply = await self.daemon.quote_reply(settings, new_seed=True)
            reply["settings"] = settings.model_dump(mode="json", exclude_none=True)
            reply["seed"] = seed
            return web.json_response(reply)
        if body.quote_id is None or body.seed is None:
            raise Bad(400, "INVALID", "quote_id: quote first ({\"quote_only\": true}), then "
                      "send its quote_id and seed")  # fmt: skip
        settings.quote_id = body.quote_id
        return await self.daemon.submit_animate(settings, {"parent": job.id})

    async def variations(self, request: web.Request) -> web.Response:
        job = self._job(request)
        body = await read_body(request, VariationsIn, bodies.SMALL_BODY)
        seeds = body.seeds or [secrets.randbelow(2**31) for _ in range(body.count)]
        if len(seeds) != body.count or len(set(seeds)) != len(seeds):
            raise Bad(400, "INVALID", "seeds: give back the count distinct seeds quoted")
        try:
            # Each its own name beside the original, so they can be compared side by side.
            all_settings = [
                await asyncio.to_thread(self._settings, job, s, f"{job.name}_v{n}")
                for n, s in enumerate(seeds, 1)
            ]
        except (OSError, ValueError) as exc:
            raise Bad(409, "CANNOT_REPEAT", f"the generation cannot be sent again: {exc}") from exc
        digests = [await self.daemon.digest(s) for s in all_settings]
        together = "v_" + hashlib.sha256(json.dumps(digests).encode()).hexdigest()[:40]
        if body.quote_only:  # every member quoted: its price and the files it would meet
            quotes = [await self.daemon.quote_reply(s, new_seed=True) for s in all_settings]
            each = int(quotes[0]["credits"])
            return web.json_response(
                {
                    "count": body.count,
                    "credits_each": each,
                    "credits_total": sum(int(q["credits"]) for q in quotes),
                    "quote_id": together,
                    "seeds": seeds,
                    "balance": quotes[0].get("balance"),
                    "conflicts": [
                        {**c, "name": str(q["name"])} for q in quotes for c in q["conflicts"]
                    ],
                }
            )
        if body.quote_id != together:
            raise Bad(
                409,
                "STALE_QUOTE",
                'quote_id: quote the variations first ({"count": N, "quote_only": true}) '
                "and send back its quote_id and seeds (nothing was spent)",
            )
        # Every member checked (names, conflicts, quote) before the first is made: one
        # refused means none is made, and nothing is spent.
        ready = []
        for settings, digest in zip(all_settings, digests, strict=True):
            settings.quote_id = str(digest)
            ready.append(await self.daemon.prepare_animate(settings, {"variation_of": job.id}))
        made = [r.job if isinstance(r, Earlier) else self.daemon.start_animate(r) for r in ready]
        jobs = [self.daemon.job_out(one).model_dump(mode="json") for one in made]
        return web.json_response({"data": jobs}, status=202)

    # -- free: a re-cut, import again, a contact sheet ---------------------------------

    def _clip(self, job: Job) -> Path:
        """The job's kept video; Bad when it is gone (or never went in)."""
        clips = self.daemon.engine.clips
        if clips is None:
            raise Bad(410, "CLIP_GONE", "this daemon keeps no videos")
        try:
            return clips.require(job.id)
        except ClipGone as exc:
            if paid_not_installed(self.daemon.store, job):
                raise Bad(
                    409,
                    "NOT_INSTALLED",
                    f"job {job.id[:8]} was paid for but its outputs did not go in "
                    f"({job.error}); retry it to install them, free: POST "
                    f"/api/v1/jobs/{job.id}/retry (or companion jobs retry {job.id[:8]})",
                ) from exc
            raise Bad(410, "CLIP_GONE", f'{exc}; "again" generates it anew') from exc

    async def recut(self, request: web.Request) -> web.Response:
        job = self._job(request)
        body = await read_body(request, RecutIn)
        local: dict[str, Any] = {"padding": body.padding, **body.asked()}
        if body.palette is not None:
            local["palette"] = body.palette_json()
        small = body.small()
        if small is not None:  # one side said: square frames, as the other is unknown here
            local["frame_size"] = [small[0] or small[1], small[1] or small[0]]
        return await self._local(job, body.export.model_dump(mode="json", exclude_unset=True),
                                 body.selection.model_dump(mode="json"), body.name,
                                 body.target_folder, local, body.replace)  # fmt: skip

    async def import_again(self, request: web.Request) -> web.Response:
        """The job's own settings, made again from the kept video into (another) target."""
        job = self._job(request)
        body = await read_body(request, ImportIn, bodies.SMALL_BODY)
        return await self._local(job, job.request.get("export") or {},
                                 job.request.get("selection") or {}, body.name,
                                 body.target_folder,
                                 job.request.get("local_export"))  # fmt: skip

    async def _local(
        self,
        job: Job,
        export: dict[str, Any],
        selection: dict[str, Any],
        name: str | None,
        target_folder: str | None,
        local_export: dict[str, Any] | None = None,
        replace: bool = False,
    ) -> web.Response:
        clip = self._clip(self.daemon.store.job(job.clip_source))
        install = job.request.get("install") or {}
        if not job.target_dir or "root" not in install:
            raise Bad(409, "NOT_A_PROJECT_JOB", "the job has no project to install into")
        root = Path(str(install["root"]))
        target = Path(job.target_dir)
        gone = await on_files(generation_checks.forgotten, self.daemon.store, root)
        if gone:
            raise Bad(403, "PROJECT_NOT_REGISTERED", gone)
        if target_folder is not None:
            chosen = confined(root, target_folder)
            if chosen is None:
                raise Bad(400, "INVALID", "target_folder: must stay inside the project")
            refusal = self.daemon.engine_refusal(str(install.get("engine")), root, chosen)
            if refusal:
                raise Bad(400, "INVALID", f"target_folder: {refusal}")
            target = chosen
        unusable = await on_files(registry.target_refusal, root, target)
        if unusable:  # free, but refused now rather than as a failed job
            raise Bad(400, "INVALID", unusable)
        chosen_range = Selection.model_validate(selection)
        unusable = await on_files(generation_checks.range_refusal, clip, chosen_range)
        if unusable:
            raise Bad(400, "INVALID", unusable)
        request = JobRequest.recut(
            JobRequest.of(job.request),
            parent=job.clip_source,
            export=ExportOptions.model_validate(export),
            selection=chosen_range,
            placement=Placement(str(install.get("engine")), root, target),
            local_export=local_export if local_export and any(local_export.values()) else None,
        )
        name = name or job.name
        clashes = await on_files(
            _clashes, self.daemon.store, str(install.get("engine")), target, name, request
        )
        if clashes and replace:  # said explicitly: each is moved aside, never lost
            try:
                agreed = await on_files(quote_context.agreed, clashes)
            except CannotReplace as exc:
                raise Bad(409, "CONFLICT", str(exc)) from exc
            request = request.model_copy(update={"replace": agreed})
        elif clashes:
            raise Bad(409, "CONFLICT", f"{clashes[0]['reason']}: it is never replaced "
                      'unasked; give another name, or send "replace": true to have it '
                      "moved aside")  # fmt: skip
        made = self.daemon.engine.submit(request, name=name, target_dir=target, priority=0)
        self.daemon.enqueue(made)
        self.daemon.changed(made)
        return web.json_response(self.daemon.job_out(made).model_dump(mode="json"), status=202)

    async def contact_sheet(self, request: web.Request) -> web.Response:
        job = self._job(request)
        body = await read_body(request, ContactSheetIn, bodies.SMALL_BODY)
        clip = self._clip(job)
        key = hashlib.sha256(json.dumps([job.id, body.times]).encode()).hexdigest()[:32]
        image = f"/api/v1/generations/{job.id}/contact_sheet.png?key={key}"
        async with self._sheets:  # one drawn at a time; the same times again are reused
            try:
                reply = await on_files(
                    generation_checks.contact_sheet,
                    clip,
                    self._sheet_path(job, key),
                    body.times,
                    image,
                )
            except MediaError as exc:
                raise Bad(400, "INVALID", f"times: {exc}") from exc
        return web.json_response(reply)

    def _sheet_path(self, job: Job, key: str) -> Path:
        return self.daemon.home / "previews" / "sheets" / f"{job.id}-{key}.png"

    async def contact_sheet_png(self, request: web.Request) -> web.StreamResponse:
        job = self._job(request)
        key = request.query.get("key", "")
        path = self._sheet_path(job, key)
        if len(key) != 32 or not all(c in "0123456789abcdef" for c in key) or not path.is_file():
            raise Bad(404, "NOT_FOUND", "key: make the contact sheet first (POST)")
        return web.FileResponse(path, headers={"Content-Type": "image/png"})

    # -- the job's files ---------------------------------------------------------------

    async def remove_files(self, request: web.Request) -> web.Response:
        """Only the companion's own files of this job, unchanged since it wrote them."""
        job = self._job(request)

        root = project_of(job)
        if root is None:
            raise Bad(409, "NOT_A_PROJECT_JOB", "the job has no project to remove from")
        gone = await on_files(generation_checks.forgotten, self.daemon.store, Path(root))
        if gone:
            raise Bad(403, "PROJECT_NOT_REGISTERED", gone)

        def remove() -> tuple[list[str], list[dict[str, str]]]:
            owner = Owner(self.daemon.store, job.id, job.name)
            removed: list[str] = []
            kept: list[dict[str, str]] = []
            for written in self.daemon.store.written_by(job.id):
                path = Path(written.path)
                if not os.path.lexists(path):
                    continue
                # Where it was written, still: no folder on the way became a link.
                refusal = generation_checks.moved_away(Path(root), path) or owner.refusal(path)
                if refusal is not None:
                    kept.append({"path": str(path), "reason": refusal})
                    continue
                path.unlink()
                removed.append(str(path))
            return removed, kept

        removed, kept = await on_files(remove)
        return web.json_response({"removed": removed, "kept": kept})

    async def reveal(self, request: web.Request) -> web.Response:
        job = self._job(request)
        root = project_of(job)
        if not job.target_dir or root is None:
            raise Bad(404, "NOT_FOUND", "the job has no folder")
        away = await on_files(generation_checks.reveal_refusal, Path(root), Path(job.target_dir))
        if away:
            raise Bad(409, "OUTSIDE_PROJECT", f"{away}; it is not shown")
        return web.json_response({"path": job.target_dir})
