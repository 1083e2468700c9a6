"""Runs accepted tasks: queued -> running -> succeeded | failed | cancelled.

Each account runs at most `concurrency` tasks at once, oldest first. A stage does real
media work on a worker thread (the synthesizer for video generation, the export engine
for exports) while its progress moves with time; a stage lasts at least its share of
--task-seconds. Cancellation is looked at on every tick. Credits move as the spec says:
held at create, charged on success, unspent holds released on cancel or failure, the
whole amount refunded on a content rejection."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.api.formats import ENGINE_PACKS
from companion.api.schema import ALPHA_REQUIRED_FORMATS, ExportFormat, ExportOptions, Selection
from companion.media import MIME_TYPES, MediaError, is_clean_name
from companion.sandbox.account.pricing import DEFAULT_VIDEO_SECONDS
from companion.sandbox.account.tiers import Limits
from companion.sandbox.errors import StageFailure
from companion.sandbox.face import DEFAULT, Face
from companion.sandbox.models import size_of
from companion.sandbox.state import AssetRecord, State, TaskRecord, iso, now, stable_id
from companion.sandbox.storage import Storage
from companion.sandbox.tasks import outputs as task_outputs
from companion.sandbox.tasks.posting import Posting

log = logging.getLogger(__name__)

REJECT_MARKER = "sandbox:reject"
EXPORT_FAIL_MARKER = "sandbox:export-fail"
NO_PACKS_MARKER = "sandbox:no-packs"  # a service that returns no engine packs
GENERATION_FPS = 24.0


Stage = tuple[str, Callable[[TaskRecord], "StageResult"]]


@dataclass
class StageResult:
    assets: list[AssetRecord]


class Runner:
    def __init__(
        self,
        state: State,
        storage: Storage,
        limits_of: Callable[[str], Limits],
        task_seconds: float,
        pool: Executor,
        save: Callable[[], None],
        face: Face = DEFAULT,
    ) -> None:
        self.face = face  # how the outputs answer the spec's open details
        self.state = state
        self.storage = storage
        self.limits_of = limits_of
        self.task_seconds = task_seconds
        self.pool = pool
        self.save = save
        self.posting = Posting(state, face.credits_posted_after, save)
        self._running: dict[str, asyncio.Task[None]] = {}

    # -- scheduling ---------------------------------------------------------------------

    def kick(self, account_id: str) -> None:
        active = sum(
            1
            for t in self.state.tasks.values()
            if t.account_id == account_id and t.status in ("running", "cancelling")
        )
        waiting = sorted(
            (
                t
                for t in self.state.tasks.values()
                if t.account_id == account_id and t.status == "queued"
            ),
            key=lambda t: t.seq,
        )
        free = self.limits_of(account_id).concurrency - active
        for task in waiting[: max(0, free)]:
            task.status = "running"
            task.started_at = iso(now())
            self._running[task.id] = asyncio.create_task(self._run(task))

    def resume_all(self) -> None:
        """After a restart: tasks that were running start again from the top; credit
        outcomes left unposted are posted when due."""
        self.posting.resume()
        for task in self.state.tasks.values():
            if task.status in ("running", "cancelling"):
                task.status = "queued" if task.status == "running" else "cancelling"
                if task.status == "cancelling":
                    self._finish_cancel(task)
        for account_id in {t.account_id for t in self.state.tasks.values()}:
            self.kick(account_id)

    async def close(self) -> None:
        for job in list(self._running.values()):
            job.cancel()
        await asyncio.gather(*self._running.values(), return_exceptions=True)

    def queued_count(self, account_id: str) -> int:
        return sum(
            1
            for t in self.state.tasks.values()
            if t.account_id == account_id and t.status == "queued"
        )

    def remaining_seconds(self, task: TaskRecord) -> float:
        if task.terminal:
            return 0.0
        return max(0.0, (1.0 - task.progress) * self.task_seconds)

    # -- cancellation -------------------------------------------------------------------

    def request_cancel(self, task: TaskRecord) -> None:
        if task.terminal:
            return
        if task.status == "queued":
            self._finish_cancel(task)
            self.save()
            return
        task.cancel_requested = True
        task.status = "cancelling"
        self.save()

    def _finish_cancel(self, task: TaskRecord) -> None:
        if task.video_done and task.object == "animation":
            self._settle(task, charge=task.price_video)  # the video was made: it stays paid
        else:
            self._settle(task, charge=0)
        task.status = "cancelled"
        task.finished_at = iso(now())

    def _settle(self, task: TaskRecord, *, charge: int, refund: bool = False) -> None:
        self.posting.settle(task, charge, refund)

    # -- running --------------------------------------------------------------------------

    async def _run(self, task: TaskRecord) -> None:
        self.save()
        generate: Stage = ("video_generation", self._generate)
        export: Stage = ("animation_export", self._export)
        stages = {
            "video_generation": [generate],
            "animation_export": [export],
            "animation": [generate, export],
        }[task.object]
        try:
            for index, (stage, work) in enumerate(stages):
                task.stage = stage
                result = await self._stage(task, index, len(stages), work)
                if result is None:
                    self._finish_cancel(task)
                    return
                self._keep_outputs(task, stage, result.assets)
                if stage == "video_generation":
                    task.video_done = True
            self._settle(task, charge=task.quoted)
            task.status, task.stage, task.progress = "succeeded", "completed", 1.0
            task.finished_at = iso(now())
        except StageFailure as failure:
            self._fail(task, failure)
        except Exception as exc:  # an unexpected media failure is the service's fault
            log.exception("task %s failed", task.id)
            self._fail(task, StageFailure("INTERNAL_ERROR", f"the task failed: {exc}", True))
        finally:
            if task.terminal:
                task_outputs.add_extra(self.face, task, self.state, self._extra_asset)
            self._running.pop(task.id, None)
            self.save()
            self.kick(task.account_id)

    def _fail(self, task: TaskRecord, failure: StageFailure) -> None:
        if failure.code == "PROVIDER_CONTENT_REJECTED":
            self._settle(task, charge=0, refund=True)
        elif task.video_done and task.object == "animation":
            self._settle(task, charge=task.price_video)
        else:
            self._settle(task, charge=0)
        task.status = "failed"
        task.finished_at = iso(now())
        task.error = {
            "code": failure.code,
            "message": failure.message,
            "retryable": failure.retryable,
        }

    async def _stage(
        self, task: TaskRecord, index: int, stages: int, work: Callable[[TaskRecord], StageResult]
    ) -> StageResult | None:
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.pool, work, task)
        minimum = self.task_seconds / stages
        started = time.monotonic()
        tick = max(0.01, min(0.1, minimum / 10))
        while True:
            elapsed = time.monotonic() - started
            if future.done() and elapsed >= minimum:
                break
            if task.cancel_requested:
                future.add_done_callback(lambda f: f.exception())  # collected, then dropped
                return None
            share = min(0.95, elapsed / minimum) if minimum > 0 else 0.95
            task.progress = round((index + share) / stages, 4)
            await asyncio.sleep(tick)
        result = future.result()
        task.progress = round((index + 1) / stages, 4)
        return result

    def _keep_outputs(self, task: TaskRecord, stage: str, assets: list[AssetRecord]) -> None:
        if stage == "video_generation":
            assets = [task_outputs.generated(self.face, task, a) for a in assets]
        for asset in assets:
            self.state.assets[asset.id] = asset
        if stage == "animation_export":
            task_outputs.after_export(self.face, task, self.state, assets)
        task.output_ids += [a.id for a in assets]

    def _extra_asset(self, task: TaskRecord, fmt: str, mime: str) -> AssetRecord:
        path = self.storage.new_path(".webp")
        task_outputs.thumbnail(str(path))
        return self._new_asset(task, fmt, path, mime)

    # -- stage work (worker threads) -------------------------------------------------------

    def _new_asset(
        self,
        task: TaskRecord,
        fmt: str,
        path: Path,
        mime: str,
        media: dict[str, Any] | None = None,
        key: list[int] | None = None,
    ) -> AssetRecord:
        return AssetRecord(
            id=stable_id("asset", task.id, fmt, path.name),
            account_id=task.account_id,
            format=fmt,
            mime_type=mime,
            byte_size=path.stat().st_size,
            created_at=iso(now()) or "",
            path=str(path),
            media=media,
            key_color=key,
        )

    def _generate(self, task: TaskRecord) -> StageResult:
        # The media code (NumPy, PyAV, Pillow) loads on the worker at the first task: a
        # sandbox that only answers reads starts without it.
        from PIL import Image

        from companion.media import SynthSpec, far_key_colour, probe, synthesize

        body = task.normalized_input
        if REJECT_MARKER in body.get("prompt", ""):
            raise StageFailure(
                "PROVIDER_CONTENT_REJECTED", "the provider's content review rejected the request"
            )
        video = body.get("video") or {}
        first = Image.open(self.state.files[task.inputs["first_frame"]].path)
        last_id = task.inputs.get("last_frame")
        last = Image.open(self.state.files[last_id].path) if last_id else None
        transparency = video.get("transparency") or {}
        key: tuple[int, int, int] | None = None
        if transparency.get("mode") == "alpha_key":
            colour = transparency.get("key_color")
            key = (
                tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[assignment]
                if colour
                else far_key_colour(first)
            )
        width, height = size_of(video.get("resolution"), video.get("ratio"))
        path = self.storage.new_path(".mp4")
        synthesize(
            first,
            path,
            SynthSpec(
                prompt=body.get("prompt", ""),
                duration=video.get("duration_seconds") or DEFAULT_VIDEO_SECONDS,
                fps=GENERATION_FPS,
                seed=video.get("seed") or 0,
                width=width,
                height=height,
                key_color=key,
            ),
            last,
        )
        info = probe(path)
        media = info.as_media()
        asset = self._new_asset(
            task,
            self.face.generated_video_format,  # "values seen": a client knows it by its media
            path,
            "video/mp4",
            media,
            list(key) if key else None,
        )
        task.inputs["generated_asset"] = asset.id
        return StageResult([asset])

    def _export(self, task: TaskRecord) -> StageResult:
        from companion.media import export_spec, export_video, probe

        body = task.normalized_input
        options = ExportOptions.model_validate(body.get("export") or {})
        selection = Selection.model_validate(body.get("selection") or {})
        if task.object == "animation":
            source = self.state.assets[task.inputs["generated_asset"]]
            marker = EXPORT_FAIL_MARKER in body.get("prompt", "")
        else:
            source = self.state.assets[str(body["source_video_asset_id"])]
            marker = any(v == EXPORT_FAIL_MARKER for v in task.metadata.values())
        if marker:
            raise StageFailure(
                "EXPORT_FAILED",
                "the export failed; the video stage's outputs are kept",
                retryable=False,
            )
        if NO_PACKS_MARKER in body.get("prompt", "") and options.output_formats:
            kept = [f for f in options.output_formats if f not in ENGINE_PACKS]
            options = options.model_copy(
                update={"output_formats": kept or [ExportFormat.SPRITESHEET]}
            )
        keyed = options.transparent.enabled or any(
            f in ALPHA_REQUIRED_FORMATS for f in options.formats
        )
        name = str(task.metadata.get("name", "animation"))
        colour = source.key_color
        key = (colour[0], colour[1], colour[2]) if keyed and colour else None
        spec = export_spec(
            options,
            selection,
            key_color=key,
            name=name if is_clean_name(name) else "animation",
        )
        folder = self.storage.new_path("")
        try:
            result = export_video(Path(source.path), folder, spec)
        except MediaError as exc:
            raise StageFailure("EXPORT_FAILED", str(exc)) from exc
        assets = []
        for output in result.outputs:
            path = self.storage.adopt(output.path)
            media = None
            if output.format == ExportFormat.CLIP_VIDEO:
                info = probe(path)
                media = info.as_media()
            assets.append(
                self._new_asset(task, output.format, path, MIME_TYPES[output.format], media)
            )
        folder.rmdir()
        return StageResult(assets)
