"""Signed downloads answered as the spec allows (4.7: their response is not shown): gzip
encoded whatever was asked, refused at first (400, 403, 429 with Retry-After), cut off
and resumed. What lands is byte for byte what the sandbox stored, through the client and
through a job; the URL is refreshed by asset lookup, never retried blindly."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from pathlib import Path
from typing import Any

import pytest

from companion.api.client import Client
from companion.api.keys import new_idempotency_key
from companion.api.schema import Asset, VideoGenerationCreate
from companion.jobs.engine import Engine
from companion.media.demo_art import draw_character
from companion.sandbox.face import DEFAULT, LATITUDE, with_changes
from companion.store import Store
from tests.conftest import TEST_KEY, both_faces
from tests.support.sandbox import check_manners, generation_body

# The download answers of the latitude face on an otherwise default sandbox: a job's
# other open details belong to other tests.
DOWNLOAD_LATITUDE = with_changes(
    DEFAULT,
    gzip_downloads=LATITUDE.gzip_downloads,
    first_download_refused=LATITUDE.first_download_refused,
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stored(sandbox: Any, asset_id: str) -> Path:
    return Path(sandbox.call(lambda: sandbox.service.state.assets[asset_id].path))


async def generated(client: Client) -> Asset:
    body = VideoGenerationCreate.model_validate(generation_body())
    task = await client.create_video_generation(body, idempotency_key=new_idempotency_key())
    task = await client.wait_for_task(task)
    assert task.status == "succeeded"
    return task.outputs[0]


@both_faces
def test_a_download_lands_byte_exact(make_sandbox, tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    sandbox = make_sandbox(journal=True)

    async def go() -> tuple[Asset, Path]:
        async with Client(sandbox.base_url, TEST_KEY) as client:
            asset = await generated(client)
            return asset, await client.download_asset(asset, tmp_path / "v.mp4")

    asset, path = asyncio.run(go())
    assert sha256(path) == sha256(stored(sandbox, str(asset.id)))
    assert path.stat().st_size == asset.byte_size
    entries = sandbox.service.journal.entries
    fetches = [e for e in entries if e.origin == "storage" or e.path.endswith("/content")]
    assert fetches and all(e.accept_encoding == "identity" for e in fetches)
    assert "signature=" not in caplog.text  # a signed URL is a secret
    check_manners(entries)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 8])
def test_a_cut_off_compressed_download_starts_again_whole(
    make_sandbox, tmp_path: Path, seed: int
) -> None:
    # Resuming with Range a file whose bytes came gzip-encoded would append encoded
    # bytes of another offset to decoded ones: the file is fetched again whole.
    sandbox = make_sandbox(face=LATITUDE, faults=f"truncated:{seed}", journal=True)

    async def go() -> list[tuple[Asset, Path]]:
        async with Client(sandbox.base_url, TEST_KEY) as client:
            assets = [await generated(client) for _ in range(3)]
            return [
                (a, await client.download_asset(a, tmp_path / f"v{i}.mp4"))
                for i, a in enumerate(assets)
            ]

    for asset, path in asyncio.run(go()):
        assert sha256(path) == sha256(stored(sandbox, str(asset.id)))
    dropped = [e for e in sandbox.service.journal.entries if e.origin == "storage"]
    assert len(dropped) > 3  # some download was cut off and fetched again


@pytest.mark.parametrize("status", [400, 403, 429])
def test_a_refused_signed_url_is_refreshed(make_sandbox, tmp_path: Path, status: int) -> None:
    sandbox = make_sandbox(face=with_changes(LATITUDE, first_download_refused=status), journal=True)

    async def go() -> tuple[Asset, Path]:
        async with Client(sandbox.base_url, TEST_KEY) as client:
            asset = await generated(client)
            return asset, await client.download_asset(asset, tmp_path / "v.mp4")

    asset, path = asyncio.run(go())
    assert sha256(path) == sha256(stored(sandbox, str(asset.id)))
    entries = sandbox.service.journal.entries
    refused = [e for e in entries if e.path.endswith("/content") and e.status == status]
    lookups = [e for e in entries if e.path == f"/v1/assets/{asset.id}"]
    assert len(refused) == 1 and len(lookups) == 1  # refreshed once, not retried blindly
    assert entries.index(refused[0]) < entries.index(lookups[0])
    check_manners(entries)  # a 429's Retry-After held before the lookup


@both_faces
def test_a_job_lands_its_outputs_byte_exact(make_sandbox, tmp_path: Path, face: str) -> None:
    sandbox = make_sandbox(face=DOWNLOAD_LATITUDE if face == "latitude" else DEFAULT)
    image = tmp_path / "hero.png"
    draw_character(96).save(image)
    request = {
        "image": str(image),
        "prompt": "idle breathing",
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "export": {
            "frame_count": 4,
            "output_formats": ["gif", "spritesheet"],
            "output_width": 64,
            "output_height": 64,
        },
        "service_export": True,  # the service's own export downloaded, not the video alone
    }
    store = Store(tmp_path / "companion.db")

    async def go() -> Any:
        async with Client(sandbox.base_url, TEST_KEY) as client:
            engine = Engine(store, client, sandbox.base_url, timeout=120)
            job = engine.submit(request, name="hero", target_dir=tmp_path / "out")
            return await engine.run(job.id)

    job = asyncio.run(go())
    assert job.state == "done", job.error
    outputs = store.assets(job.id)
    store.close()
    assert {o.format for o in outputs} >= {"gif", "spritesheet"}
    for output in outputs:
        assert output.installed_path, output
        assert sha256(Path(output.installed_path)) == sha256(stored(sandbox, output.id))
