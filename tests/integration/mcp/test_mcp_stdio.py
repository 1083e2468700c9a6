"""`companion mcp` over stdio, driven by the SDK's own client in both protocol eras: quote
then animate into the Godot sample, the files land and the account moves by what was
quoted, the same call again pays nothing; the server killed mid-animate, then the same
call, makes one task."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from companion.sandbox import SandboxThread
from tests.support.agents import (
    ERAS,
    agent_home,
    animate_body,
    balance,
    godot_sample,
    stdio_client,
)
from tests.support.engine_checks import check_sprite_frames
from tests.support.paid import creates


@pytest.mark.slow
@pytest.mark.parametrize("mode", ERAS)
def test_quote_then_animate_lands_and_pays_once(
    mode: str, make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(journal=True)
    project = godot_sample(tmp_path)
    home = agent_home(tmp_path, project, {"per_call": 500, "per_day": 1000})
    body = animate_body(project)
    before = balance(sandbox)
    progress: list[float] = []

    async def progressed(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)

    async def drive() -> tuple[Any, Any, Any, Any, list[str]]:
        async with stdio_client(home, sandbox, mode) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            quote = await client.call_tool("quote", body)
            made = await client.call_tool("animate", body, progress_callback=progressed)
            again = await client.call_tool("animate", body)
            return listed, quote, made, again, [client.protocol_version]

    listed, quote, made, again, version = asyncio.run(drive())
    assert version == (["2025-11-25"] if mode == "legacy" else [mode])
    assert listed["quote"].annotations.read_only_hint is True
    assert listed["animate"].annotations.read_only_hint is False
    assert listed["animate"].annotations.idempotent_hint is True
    assert listed["animate"].output_schema is not None
    priced = quote.structured_content
    assert not quote.is_error and priced["spends"] == priced["credits"] > 0
    assert priced["balance"] == before and priced["agents"]["verdict"] == "within"
    done = made.structured_content
    assert not made.is_error, made.content
    assert done["made"] and done["job"]["state"] == "done" and not done["asked"]
    assert done["spent"] == priced["credits"] and progress and progress[-1] == 100
    assert "res://animations/hero.tres" in done["files"]
    found = check_sprite_frames(project, "res://animations/hero.tres")
    assert found.frames == 4
    with Image.open(project / "animations" / "hero.png") as sheet:
        assert sheet.mode == "RGBA" and sheet.getchannel("A").getextrema()[0] == 0
    # The account moved by exactly what was quoted; the same call again paid nothing.
    assert balance(sandbox) == before - priced["credits"] == done["balance"]
    repeat = again.structured_content
    assert repeat["spent"] == 0 and repeat["job"]["id"] == done["job"]["id"]
    assert len(creates(sandbox)) == 1
    spent = [json.loads(line) for line in (home / "agent-spend.jsonl").read_text().splitlines()]
    assert [e["credits"] for e in spent] == [priced["credits"]]


@pytest.mark.slow
def test_killed_mid_animate_then_the_same_call_makes_one_task(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(journal=True, task_seconds=3.0)
    project = godot_sample(tmp_path)
    home = agent_home(tmp_path, project, {"per_call": 500})
    body = animate_body(project, "slime")
    before = balance(sandbox)

    async def killed() -> None:
        async def progressed(done: float, total: float | None, message: str | None) -> None:
            if message and message.endswith("running"):  # created and paid at the service
                pid = json.loads((home / "daemon.json").read_text())["pid"]
                os.kill(pid, signal.SIGKILL)  # the server and the daemon in it, at once

        with pytest.raises(BaseException):  # noqa: B017 (the connection just ends)
            async with stdio_client(home, sandbox, "legacy") as client:
                await client.call_tool("animate", body, progress_callback=progressed)

    async def again() -> Any:
        async with stdio_client(home, sandbox, "2026-07-28") as client:
            return await client.call_tool("animate", body, progress_callback=_quiet)

    asyncio.run(killed())
    assert len(creates(sandbox)) == 1
    done = asyncio.run(again())
    assert not done.is_error, done.content
    job = done.structured_content["job"]
    assert job["state"] == "done" and done.structured_content["spent"] == 0
    assert len(creates(sandbox)) == 1  # one task, paid once
    assert balance(sandbox) == before - job["quote"]
    assert (project / "animations" / "slime.tres").is_file()


async def _quiet(done: float, total: float | None, message: str | None) -> None:
    return None
