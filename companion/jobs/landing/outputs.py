"""A job's outputs, from the finished task to the project: staged downloads (or a
re-cut's local export), the kept clip, and the install (engine-aware or as downloaded),
each step resumable from the store alone. Part of the Engine (see engine.py)."""

from __future__ import annotations

import asyncio
import functools
import logging
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from companion.api.client import Client
from companion.api.schema import Asset
from companion.install import (
    ApplyFailed,
    InstallError,
    LostError,
    NotInstallable,
    Owner,
    Placement,
    Provenance,
    SheetSourceError,
    Staged,
    install_into_engine,
    load_manifest,
    place_download,
    set_aside_files,
    sha256_of,
)
from companion.jobs import recut
from companion.jobs.ask.request import JobRequest
from companion.jobs.characters.wiring import into_character
from companion.jobs.crash import crash_point
from companion.jobs.errors import JobFailed, StagingRefused
from companion.jobs.landing import aside
from companion.jobs.landing.page_names import placed_names
from companion.jobs.landing.staging import STAGING, job_folder, release_if_unused
from companion.jobs.landing.unwritten import unexportable, unwritable
from companion.jobs.lifecycle import FINAL, State
from companion.jobs.provenance import kept_record, service_name
from companion.jobs.remote.bought import made_here
from companion.media import MediaError
from companion.store import Job, Store
from companion.store.clips import ClipStore
from companion.store.errors import ClipGone

log = logging.getLogger("companion.jobs")
PARENT_POLL = 0.5  # seconds between looks at the generation a re-cut waits for


class OutputSteps:
    """The Engine's download, re-cut and install steps."""

    store: Store
    client: Client
    clips: ClipStore | None
    _loop: asyncio.AbstractEventLoop | None
    _move: Callable[..., Job]
    _amove: Callable[..., Awaitable[Job]]
    run: Callable[[str], Awaitable[Job]]
    driving: Callable[[str], bool]

    def _staging(self, job: Job) -> Path:
        assert job.target_dir
        target = Path(job.target_dir)
        try:
            return job_folder(target, job.id)
        except StagingRefused as exc:
            raise JobFailed(str(exc)) from exc
        except OSError as exc:
            if made_here(job):  # its video is kept here: exported again, free
                raise JobFailed(unexportable(job, exc)) from exc
            raise JobFailed(self._unwritable(job, target, exc)) from exc

    def _unwritable(self, job: Job, target: Path, exc: OSError) -> str:
        return unwritable(job, self.store.assets(job.id), target, exc)

    async def _download(self, job: Job) -> Job:
        if made_here(job) and job.remote_status == "succeeded":
            # The video alone bought, or in place, loop or trim asked: the kept clip is
            # exported here, as a re-cut's.
            await self._keep_clip(job)
            job = await self._set_aside(job)
            if self.clips is not None and self.clips.kept(job.id):
                return await self._export_here(job, job.id, resolved=job.resolved or {})
            # No clip kept here (no clip store, or keeping it failed): the paid video is
            # fetched into the staging folder, exported, and let go.
            video = await self._fetch_video(job)
            try:
                return await self._export_here(
                    job, job.id, resolved=job.resolved or {}, video=video
                )
            finally:
                video.unlink(missing_ok=True)
        try:
            await self._download_outputs(job)
        except JobFailed:
            # The project could not take them, yet the video is paid for: kept all the
            # same (in the clip store), so every request of its generation stays free.
            await self._keep_clip(job)
            raise
        await self._keep_clip(job)
        job = await self._set_aside(job)
        return await self._amove(job, State.INSTALLING)

    async def _set_aside(self, job: Job) -> Job:
        """Outputs of formats not known here, downloaded into the job's aside folder (best
        effort: they were not asked for); the job's entries say where each one is."""
        items = job.kept_aside
        if not items or all(i.get("path") for i in items):
            return job
        done = await aside.download(self.store, self.client, job.id, items)
        # Only while the job is still where it was: a cancel meanwhile ends this step.
        return await asyncio.to_thread(
            functools.partial(
                self.store.update_job, job.id, expect_state=job.state, unknown_outputs=done
            )
        )

    async def _download_outputs(self, job: Job) -> None:
        assert job.target_dir
        staging = self._staging(job)
        for row in self.store.assets(job.id):
            if row.installed_path or (row.staged_path and Path(row.staged_path).exists()):
                continue
            asset: Asset = await self.client.get_asset(row.id)
            try:
                path = await self.client.download_asset(asset, staging / row.file_name)
                digest = await asyncio.to_thread(sha256_of, path)  # off the event loop
            except ConnectionError:
                raise  # the network, not the disk: the downloader's own retries gave up
            except OSError as exc:  # a full disk, a folder taken away or made read-only
                raise JobFailed(self._unwritable(job, Path(job.target_dir), exc)) from exc
            await asyncio.to_thread(self.store.asset_staged, row.id, str(path), digest)
            crash_point("mid_download")

    async def _recut(self, job: Job) -> Job:
        """A re-cut spends nothing: the parent's kept video is exported here, staged, and
        installed like any job's outputs (the same guards over the user's files)."""
        assert job.target_dir and self.clips is not None
        parent = str(JobRequest.of(job.request).parent)
        made = await asyncio.to_thread(self.store.job, parent)
        if made.state not in FINAL:  # the generation it answers is under way: after it
            if made.state != State.AWAITING_APPROVAL and not self.driving(parent):
                # Taken along here, as the command that began it would be when run again
                # (it may be gone: stopped, killed): its every step is safe to take again,
                # and a step another hand took first (StateChanged) is left to it.
                await self.run(parent)
            else:
                await asyncio.sleep(PARENT_POLL)
            return await asyncio.to_thread(self.store.job, job.id)
        resolved = {"export": recut.resolved_export(job.request)}
        return await self._export_here(
            job, parent, resolved=resolved, quote=0, remote_status="succeeded"
        )

    async def _fetch_video(self, job: Job) -> Path:
        """The job's generated video downloaded into its staging folder."""
        if not isinstance(job.clip_asset, str):
            raise JobFailed(
                "the service returned no generated video for this paid task (none of its "
                "outputs is a video); nothing can be exported from it here"
            )
        staging = self._staging(job)
        asset: Asset = await self.client.get_asset(job.clip_asset)
        try:
            return await self.client.download_asset(
                asset, staging / f".{job.id}.video", f"{job.name} (the video)"
            )
        except ConnectionError:
            raise
        except OSError as exc:
            raise JobFailed(self._unwritable(job, Path(str(job.target_dir)), exc)) from exc

    async def _export_here(
        self,
        job: Job,
        clip_of: str,
        *,
        resolved: dict[str, Any],
        video: Path | None = None,
        **fields: Any,
    ) -> Job:
        """clip_of's kept video (or the video given) exported here with job's request,
        staged like downloads and on to the install; resolved gains the loop chosen."""
        try:
            if video is not None:
                clip = video
            elif self.clips is None:
                raise ClipGone("this companion keeps no videos (no clip store)")
            else:
                clip = self.clips.require(clip_of)
        except ClipGone as exc:
            raise JobFailed(str(exc)) from exc
        staging = self._staging(job)
        try:
            rows, loop = await asyncio.to_thread(
                recut.staged_rows, job.id, job.name, job.request, clip, staging
            )
        except MediaError as exc:
            raise JobFailed(f"the local export failed: {exc}") from exc
        except OSError as exc:  # a full disk, a folder taken away or made read-only
            raise JobFailed(unexportable(job, exc)) from exc
        await asyncio.to_thread(
            self.store.add_assets, job.id, [(r[0], r[1], r[2], r[3]) for r in rows]
        )
        for asset_id, _, _, _, path, digest in rows:
            await asyncio.to_thread(self.store.asset_staged, asset_id, str(path), digest)
        return await self._amove(
            job,
            State.INSTALLING,
            resolved={**resolved, **({"loop": loop} if loop else {})},
            **fields,
        )

    async def _keep_clip(self, job: Job) -> None:
        """The paid video into the clip store, downloaded once: taken from the staged
        outputs when the project asked for it too, fetched otherwise. Keeping it is a
        convenience (free re-cuts): a failure is logged, and the job goes on."""
        clips, asset_id = self.clips, job.clip_asset
        if clips is None or not isinstance(asset_id, str) or clips.kept(job.id):
            return
        row = next((r for r in self.store.assets(job.id) if r.id == asset_id), None)
        local = [Path(p) for p in (row.staged_path, row.installed_path) if p] if row else []
        try:
            here = next((p for p in local if p.is_file()), None)
            if here is not None:
                await asyncio.to_thread(clips.keep, job.id, here)
            else:
                clips.folder.mkdir(parents=True, exist_ok=True)
                asset: Asset = await self.client.get_asset(asset_id)
                path = await self.client.download_asset(
                    asset, clips.folder / f"{job.id}.download", f"{job.name} (the video)"
                )
                await asyncio.to_thread(clips.keep, job.id, path, move=True)
            about = {
                "name": job.name,
                "remote_id": job.remote_id,
                "prompt": job.request.get("prompt"),
            }
            generation = str(job.request.get("generation") or "")
            await asyncio.to_thread(clips.publish, job.id, generation, about)  # team mode
        except (OSError, ValueError) as exc:
            log.warning("job %s: the video was not kept for re-cuts: %s", job.id, exc)

    async def _install_off_loop(self, job: Job) -> Job:
        """Installs read, unpack and hash whole files: a thread does it, so the daemon
        keeps answering; whatever goes wrong ends the job failed, saying why."""
        self._loop = asyncio.get_running_loop()
        try:
            return await asyncio.to_thread(self._install, job)
        except OSError as exc:
            log.warning("job %s: install failed: %s", job.id, exc)
            assert job.target_dir
            raise JobFailed(self._unwritable(job, Path(job.target_dir), exc)) from exc
        except (InstallError, MediaError, UnicodeDecodeError, ValueError) as exc:
            # The install layer's whole family (and the engine text it writes, which may
            # refuse a name): a refusal there fails the job, saying why, instead of
            # leaving it stuck installing, where a retry would wait on it for ever.
            log.warning("job %s: install failed: %s", job.id, exc)
            raise JobFailed(f"the install failed: {exc}") from exc

    def _install(self, job: Job) -> Job:
        assert job.target_dir
        asked = JobRequest.of(job.request)
        placement = asked.placement(Path(job.target_dir))
        for kept in set_aside_files(Path(job.target_dir), job.id, asked.replace or {}):
            log.info("job %s: the user's %s was kept at %s", job.id, kept.name, kept)
        # Kept with the job before any file lands, so every file (and a resumed install)
        # says the same.
        record = self._record(job) if job.remote_status == "succeeded" else None
        if placement is not None and placement.engine_aware and record is not None:
            try:
                return self._install_for_engine(job, placement, record)
            except (NotInstallable, SheetSourceError) as exc:
                # The downloads are paid for: they go in as they are, and the job says why.
                log.warning(
                    "job %s: engine install failed (%s); files kept as downloaded", job.id, exc
                )
                notes = self._install_as_downloaded(job)
                return self._move(
                    job,
                    State.FAILED,
                    error="; ".join(
                        [f"{exc}. The downloaded files are in {job.target_dir}", *notes]
                    ),
                )
        return self._finish(job, self._install_as_downloaded(job))

    def _record(self, job: Job) -> Provenance:
        # An engine without a client (local re-cuts only) names no service of its own.
        service = service_name(self.client.transport.base_url) if self.client else ""
        return kept_record(self.store, job, service)

    def _install_for_engine(self, job: Job, placement: Placement, record: Provenance) -> Job:
        target = placement.target
        staging = self._staging(job)
        rows = self.store.assets(job.id)
        if load_manifest(staging) is None:
            lost = [
                r.file_name for r in rows if not (r.staged_path and Path(r.staged_path).exists())
            ]
            if lost:
                raise JobFailed(
                    f"outputs {', '.join(lost)} were lost before they were installed; "
                    "download them with companion assets download"
                )
        named = placed_names(rows, job.name)  # a sheet's pages by their place
        try:
            done = install_into_engine(
                self.store,
                placement,
                Owner(self.store, job.id, job.name),
                [
                    Staged(r.format, named.get(r.id, r.file_name), Path(str(r.staged_path)))
                    for r in rows
                ],
                staging,
                export=(job.resolved or {}).get("export") or {},
                pixel_art=JobRequest.of(job.request).pixel_art is not None,
                after_each=lambda: crash_point("mid_install"),
                record=record,
            )
        except ApplyFailed as exc:
            raise JobFailed(str(exc)) from exc
        tree = done.tree
        for row in rows:
            if not row.installed_path:
                file_name = named.get(row.id, row.file_name)
                where = target / tree.outputs.get(file_name, file_name)
                self.store.asset_installed(row.id, str(where))
        for note in done.notes:
            log.warning("job %s: %s", job.id, note)
        shutil.rmtree(target / STAGING / job.id, ignore_errors=True)
        release_if_unused(target)
        if tree.resource:
            job = self.store.update_job(job.id, resource=tree.resource)
        part = JobRequest.of(job.request).character
        if part is None or not tree.resource:
            return self._finish(job)
        return self._finish(job, into_character(self.store, job, placement, part, tree.resource))

    def _install_as_downloaded(self, job: Job) -> list[str]:
        """The outputs as they are; says which ones had to go beside a file that is not
        the companion's to replace."""
        assert job.target_dir
        target = Path(job.target_dir)
        guard = Owner(self.store, job.id, job.name)
        notes: list[str] = []
        rows = self.store.assets(job.id)
        named = placed_names(rows, job.name)  # a sheet's pages by their place
        for row in rows:
            if row.installed_path:
                continue  # never installed twice
            staged = Path(row.staged_path) if row.staged_path else None
            file_name = named.get(row.id, row.file_name)
            try:
                placed = place_download(target, file_name, staged, row.sha256, guard)
            except LostError as exc:
                raise JobFailed(
                    f"output {row.file_name} was lost before it was installed; "
                    "run: companion jobs retry is not possible, download it with "
                    f"companion assets download {row.id}"
                ) from exc
            if placed.refused is not None:
                notes.append(f"{placed.refused}, so {placed.path.name} was put beside it")
            self.store.asset_installed(row.id, str(placed.path))
            crash_point("mid_install")
        shutil.rmtree(Path(target) / STAGING / job.id, ignore_errors=True)
        release_if_unused(target)
        return notes

    def _finish(self, job: Job, notes: list[str] | None = None) -> Job:
        status = job.remote_status
        final_state = {"succeeded": State.DONE, "cancelled": State.CANCELLED}.get(
            str(status), State.FAILED
        )
        # Refusals of what the service sent, and files left alone, fail the job by name;
        # outputs kept aside are named, never failing it (see aside.py).
        refused = notes or []
        if refused or final_state == State.FAILED:
            error = "; ".join([*([job.error] if job.error else []), *refused, *self._ends(job)])
            return self._move(job, State.FAILED, error=error or None)
        if final_state == State.CANCELLED and not job.error:
            # A job's end always says why: what the service kept of its hold is in the books.
            moves = self.store.credit_moves(job.id)
            return self._move(
                job,
                final_state,
                error=(
                    f"cancelled while it ran at the service: {moves['released']} credits of "
                    f"its hold released, {moves['spent']} spent"
                ),
            )
        return self._move(job, final_state)

    def _ends(self, job: Job) -> list[str]:
        """What a failed job says beyond its error: the paid video kept (its same command
        again re-cuts it, free), and the outputs kept aside."""
        said: list[str] = []
        kept = self.clips is not None and self.clips.kept(job.id) is not None
        if job.remote_status == "failed" and job.clip_asset and kept:
            said.append(
                "the generated video was paid for and is kept: the same command again "
                "re-cuts it here without paying"
            )
        items = job.kept_aside
        return [*said, aside.summary(items)] if items else said
