"""The client against the sandbox over loopback: every operation, and the spec's rules
under every fault profile, checked from the sandbox's request journal."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from companion.api.client import Client
from companion.api.errors import (
    IdempotencyConflictError,
    NotFoundError,
    UncertainRequestError,
    WaitTimeoutError,
)
from companion.api.keys import new_idempotency_key
from companion.api.pacing import Pacer
from companion.api.schema import (
    AnimationCreate,
    AnimationExportCreate,
    ExportOptions,
    PreviewRequest,
    VideoGenerationCreate,
    VideoGenerationQuote,
)
from companion.jobs.engine import Engine
from companion.media.demo_art import draw_character
from companion.sandbox import Limits
from companion.sandbox.faults import PROFILES
from companion.sandbox.journal import Entry
from companion.store import Store
from tests.conftest import TEST_KEY
from tests.support.calls import png_bytes
from tests.support.sandbox import check_manners, generation_body


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def no_secret_anywhere(secret: str, log_text: str, folder: Path) -> None:
    assert secret not in log_text
    for path in folder.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILES)
def test_animate_under_every_fault_profile(
    make_sandbox, tmp_path: Path, caplog, profile: str
) -> None:
    caplog.set_level(logging.DEBUG)
    sandbox = make_sandbox(
        faults=f"{profile}:11",
        journal=True,
        limits=None,
        task_seconds=0.4,
        state=tmp_path / "sandbox" / "state.json",
    )
    image = tmp_path / "hero.png"
    draw_character(96).save(image)
    formats = ["gif", "spritesheet", "spritesheet_json", "webm_alpha", "unity_pack"]
    request = {
        "image": str(image),
        "prompt": "idle breathing",
        "video": {
            "duration_seconds": 1,
            "resolution": "360p",
            "transparency": {"mode": "alpha_key"},
        },
        "export": ExportOptions.model_validate(
            {
                "frame_count": 6,
                "output_formats": formats,
                "output_width": 64,
                "output_height": 64,
                "transparent": True,
            }
        ).model_dump(mode="json"),
        # The service's export: five downloads (and the video) under every fault.
        "service_export": True,
    }
    store = Store(tmp_path / "companion.db")

    async def go() -> Any:
        async with Client(sandbox.base_url, TEST_KEY) as client:
            engine = Engine(store, client, sandbox.base_url, timeout=120)
            job = engine.submit(request, name="hero", target_dir=tmp_path / "out")
            return await engine.run(job.id)

    job = run(go())
    assert job.state == "done", job.error
    outputs = store.assets(job.id)
    store.close()
    assert sorted(o.format for o in outputs) == sorted([*formats, "clip_video"])
    for output in outputs:
        assert output.installed_path
        assert Path(output.installed_path).stat().st_size == output.byte_size
    sheet = json.loads((tmp_path / "out" / "hero.json").read_text())
    assert len(sheet["frames"]) == 6
    assert not [p for p in tmp_path.iterdir() if ".partial-" in p.name]
    entries = sandbox.service.journal.entries
    creates = [e for e in entries if e.method == "POST" and e.path == "/v1/animations"]
    assert len({e.idempotency_key for e in creates}) == 1
    assert len(sandbox.call(lambda: list(sandbox.service.state.tasks))) == 1  # one paid task
    check_manners(entries)
    no_secret_anywhere(TEST_KEY, caplog.text, tmp_path)
    if profile == "none":
        assert not [e for e in entries if e.status == 429], "pacing should avoid every 429"


def test_every_operation_returns_its_model(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(journal=True)

    async def go() -> None:
        async with Client(sandbox.base_url, TEST_KEY) as client:
            account = await client.refresh_limits()
            assert client.pacer.configured and account.limits.create_per_minute == 1000
            assert (await client.get_credit_balance()).available == 1000
            assert (await client.list_models()).data[0].id == "sandbox-motion-1"
            uploaded = await client.upload_file(png_bytes(), "a.png", "image/png")
            quote = await client.quote_video_generation(VideoGenerationQuote(has_last_frame=True))
            assert quote.credits > 0
            raw = generation_body()
            raw["input"]["first_frame"] = {"type": "file", "file_id": str(uploaded.id)}
            body = VideoGenerationCreate.model_validate(raw)
            video = await client.create_video_generation(
                body, idempotency_key=new_idempotency_key()
            )
            progress: list[float] = []
            video = await client.wait_for_task(
                video, on_progress=lambda t: progress.append(t.progress)
            )
            assert (
                video.status == "succeeded" and progress == sorted(progress) and progress[-1] == 1
            )
            source = video.outputs_of("clip_video")[0]
            export_body = AnimationExportCreate.model_validate(
                {
                    "source_video_asset_id": str(source.id),
                    "export": {
                        "frame_count": 4,
                        "output_formats": ["gif"],
                        "output_width": 64,
                        "output_height": 64,
                    },
                }
            )
            assert (await client.quote_animation_export(export_body)).credits > 0
            export = await client.create_animation_export(
                export_body, idempotency_key=new_idempotency_key()
            )
            export = await client.wait_for_task(export)
            assert export.outputs_of("gif")
            animation_body = AnimationCreate.model_validate(
                {
                    **generation_body(),
                    "export": {"frame_count": 4, "output_width": 64, "output_height": 64},
                }
            )
            assert (await client.quote_animation(animation_body)).credits > 0
            animation = await client.create_animation(
                animation_body, idempotency_key=new_idempotency_key()
            )
            cancelled = await client.cancel_animation(str(animation.id))
            assert cancelled.status in ("cancelling", "cancelled", "running", "succeeded")
            assert (await client.get_animation(str(animation.id))).id == animation.id
            assert (await client.get_animation_export(str(export.id))).status == "succeeded"
            assert (await client.get_video_generation(str(video.id))).status == "succeeded"
            for _ in range(3):
                await client.create_video_generation(body, idempotency_key=new_idempotency_key())
            page = await client.list_tasks("video_generation", limit=2)
            assert len(page.data) == 2 and page.next_cursor
            listed = [t.id async for t in client.iter_tasks("video_generation", page_size=2)]
            assert len(listed) == 4 and len(set(listed)) == 4
            asset = await client.get_asset(str(source.id))
            assert asset.byte_size == source.byte_size
            preview = await client.preview_asset(
                str(source.id), PreviewRequest(timestamps_seconds=[0.5])
            )
            assert preview.cells[0].requested_time_seconds == 0.5
            path = await client.download_asset(asset, tmp_path / "clip.mp4")
            assert path.stat().st_size == asset.byte_size
            with pytest.raises(NotFoundError):
                await client.get_asset("00000000-0000-4000-8000-000000000000")
            with pytest.raises(IdempotencyConflictError):
                key = new_idempotency_key("conflict")
                await client.create_video_generation(body, idempotency_key=key)
                await client.create_video_generation(
                    VideoGenerationCreate.model_validate(
                        {**body.model_dump(mode="json"), "prompt": "other"}
                    ),
                    idempotency_key=key,
                )

    run(go())
    # The conflict above was provoked on purpose; every other create kept its body.
    check_manners(
        [
            e
            for e in sandbox.service.journal.entries
            if not (e.idempotency_key or "").startswith("conflict-")
        ]
    )


def test_uploads_are_never_resent_blindly(make_sandbox) -> None:
    sandbox = make_sandbox(faults="resets:2", journal=True)

    async def go() -> tuple[int, int]:
        ok = uncertain = 0
        async with Client(sandbox.base_url, TEST_KEY) as client:
            for _ in range(25):
                try:
                    await client.upload_file(png_bytes(), "a.png", "image/png")
                    ok += 1
                except UncertainRequestError:
                    uncertain += 1
        return ok, uncertain

    ok, uncertain = run(go())
    assert uncertain > 0 and ok > 0
    uploads = [e for e in sandbox.service.journal.entries if e.path == "/v1/files"]
    assert len(uploads) == 25  # one attempt per call, dropped or not


def test_in_progress_create_is_waited_for_and_resent(make_sandbox) -> None:
    sandbox = make_sandbox(accept_seconds=3.0, journal=True)

    async def go() -> Any:
        async with Client(sandbox.base_url, TEST_KEY, read_timeout=0.4) as client:
            body = VideoGenerationCreate.model_validate(generation_body())
            return await client.create_video_generation(body, idempotency_key="in-progress-key")

    task = run(go())
    entries = [e for e in sandbox.service.journal.entries if e.path == "/v1/video-generations"]
    codes = [e.error_code for e in entries]
    assert "IDEMPOTENCY_IN_PROGRESS" in codes and entries[-1].status == 202
    assert len(sandbox.call(lambda: list(sandbox.service.state.tasks))) == 1
    assert str(task.id) in sandbox.call(lambda: list(sandbox.service.state.tasks))
    check_manners([*sandbox.service.journal.entries, Entry("storage", "GET", "/x")])


def test_wait_timeout_ends_only_local_waiting(make_sandbox) -> None:
    sandbox = make_sandbox(task_seconds=3)

    async def go() -> None:
        async with Client(sandbox.base_url, TEST_KEY) as client:
            body = VideoGenerationCreate.model_validate(generation_body())
            task = await client.create_video_generation(body, idempotency_key=new_idempotency_key())
            with pytest.raises(WaitTimeoutError) as caught:
                await client.wait_for_task(task, timeout=1.0)
            assert not caught.value.task.is_terminal  # type: ignore[attr-defined]
            finished = await client.wait_for_task(task, timeout=60)
            assert finished.status == "succeeded"

    run(go())


def test_expired_urls_are_refreshed(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(url_seconds=1, journal=True)

    async def go() -> None:
        async with Client(sandbox.base_url, TEST_KEY) as client:
            body = VideoGenerationCreate.model_validate(generation_body())
            task = await client.create_video_generation(body, idempotency_key=new_idempotency_key())
            task = await client.wait_for_task(task)
            asset = task.outputs[0]
            await asyncio.sleep(2.2)
            path = await client.download_asset(asset, tmp_path / "v.mp4")
            assert path.stat().st_size == asset.byte_size

    run(go())
    paths = [e.path for e in sandbox.service.journal.entries if e.method == "GET"]
    assert any(p.startswith("/v1/assets/") and not p.endswith("/content") for p in paths)


def test_pacing_keeps_within_the_window(make_sandbox) -> None:
    window = 2.0
    sandbox = make_sandbox(limits=Limits(1, 3, 3, 5), rate_window=window, journal=True)

    async def go() -> float:
        pacer = Pacer(window=window)
        async with Client(sandbox.base_url, TEST_KEY, pacer=pacer) as client:
            await client.refresh_limits()
            started = time.monotonic()
            await asyncio.gather(*(client.get_credit_balance() for _ in range(11)))
            return time.monotonic() - started

    elapsed = run(go())
    statuses = [e.status for e in sandbox.service.journal.entries]
    assert 429 not in statuses and len(statuses) == 12
    assert elapsed >= window  # 12 requests at 5 per window need at least two windows
