"""Uploaded file ids are the account's (spec 2.6: owned files; 5: ownership per account)
and live as long as the service keeps them (8: retention not shown): a large picture
(uploaded, not inline) is remembered per service and account, and a file id answered 404
is forgotten and the picture uploaded again, once."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from companion.api.client import Client
from companion.jobs.ask.create_body import INLINE_LIMIT
from companion.jobs.engine import Engine
from companion.sandbox.face import DEFAULT, with_changes
from companion.store import Store


def large_picture(path: Path) -> Path:
    Image.frombytes("RGB", (420, 420), os.urandom(420 * 420 * 3)).save(path)
    assert path.stat().st_size > INLINE_LIMIT  # so it is uploaded, not sent inline
    return path


def request_for(image: Path) -> dict[str, Any]:
    return {
        "image": str(image),
        "prompt": "idle breathing",
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "export": {
            "frame_count": 4,
            "output_formats": ["spritesheet"],
            "output_width": 64,
            "output_height": 64,
        },
    }


def uploads(sandbox: Any) -> list[Any]:
    return [e for e in sandbox.service.journal.entries if e.path == "/v1/files"]


def test_two_accounts_do_not_share_file_ids(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(api_keys=["a:sk-1", "b:sk-2"], journal=True)
    request = request_for(large_picture(tmp_path / "hero.png"))
    store = Store(tmp_path / "companion.db")  # one companion, two keys of two accounts

    async def quote(key: str) -> int:
        async with Client(sandbox.base_url, key) as client:
            return await Engine(store, client, sandbox.base_url).quote(request, "hero")

    try:
        assert asyncio.run(quote("sk-1")) > 0
        assert asyncio.run(quote("sk-2")) > 0  # was a 404: account a's file id
        assert asyncio.run(quote("sk-1")) > 0
    finally:
        store.close()
    assert len(uploads(sandbox)) == 2  # one per account, then reused


@pytest.mark.parametrize(
    ("service_export", "refused_at"),
    [(False, "/v1/video-generations"), (True, "/v1/animations/quote")],
    ids=["video-alone-at-create", "one-click-at-quote"],
)
def test_a_forgotten_file_id_is_uploaded_again_once(
    make_sandbox, tmp_path: Path, service_export: bool, refused_at: str
) -> None:
    """The service forgets the file between quote and create: a one-click's quote names
    it and is answered 404, a video generation's quote does not and its create is; either
    way the picture goes up again once and one task is made."""
    retention = 1.0
    sandbox = make_sandbox(
        face=with_changes(DEFAULT, file_retention_seconds=retention), journal=True
    )
    request = {
        **request_for(large_picture(tmp_path / "hero.png")),
        "service_export": service_export,
    }
    store = Store(tmp_path / "companion.db")

    async def go() -> Any:
        async with Client(sandbox.base_url, "sk-test") as client:
            engine = Engine(store, client, sandbox.base_url, timeout=120)
            await engine.quote(request, "hero")  # uploads it
            time.sleep(retention + 0.5)  # the service forgets it
            job = engine.submit(request, name="hero", target_dir=tmp_path / "out")
            return await engine.run(job.id)

    try:
        job = asyncio.run(go())
        ledger = {e["entry"]: e["credits"] for e in store.ledger(job.id)}
    finally:
        store.close()
    assert job.state == "done", job.error
    entries = sandbox.service.journal.entries
    gone = [e for e in entries if e.status == 404]
    assert [e.path for e in gone] == [refused_at] and len(uploads(sandbox)) == 2
    made = [e for e in entries if e.method == "POST" and e.status == 202]
    assert len(made) == 1 and ledger["charge"] > 0
