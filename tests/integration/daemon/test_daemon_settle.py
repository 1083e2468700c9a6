"""Watched inboxes settle files on events and on timers set for the files waited on: an
idle watcher does not look at anything, however many inboxes it watches."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

import companion.daemon.inbox.watch as watch_module
from companion.daemon.inbox.settle import ATTEMPTS, Settling
from companion.daemon.inbox.watch import ProjectWatcher
from companion.store import Job


class CountingWatcher(ProjectWatcher):
    looks = 0

    async def _settle_once(self) -> None:
        CountingWatcher.looks += 1
        await super()._settle_once()


def _job(request: dict[str, Any], name: str, target: Path, kind: str) -> Job:
    return Job(
        id=f"job-{name}",
        kind=kind,
        state="queued",
        priority=0,
        name=name,
        request=request,
        target_dir=str(target),
        idempotency_key=None,
        body=None,
        remote_id=None,
        quote=None,
        approved=False,
        error=None,
        created_at="",
        updated_at="",
    )


def test_idle_watchers_look_at_nothing_and_a_drop_is_still_taken(tmp_path: Path) -> None:
    recorded: list[str] = []

    def submit(request: dict[str, Any], name: str, target: Path, kind: str) -> Job:
        recorded.append(name)
        return _job(request, name, target, kind)

    async def scenario() -> None:
        watchers = [
            CountingWatcher(
                {
                    "root": str(tmp_path / f"game{n}"),
                    "inbox": "inbox",
                    "defaults": {"prompt": "idle"},
                },
                submit,
                lambda digest: [],
                stable_seconds=0.2,
            )
            for n in range(5)
        ]
        for n, watcher in enumerate(watchers):
            (tmp_path / f"game{n}").mkdir()
            await watcher.start([])
        try:
            await asyncio.sleep(1.5)  # a fixed tick would look 7 times per inbox by now
            assert CountingWatcher.looks == 0
            pixels = np.random.default_rng(1).integers(0, 255, (32, 32, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(tmp_path / "game3" / "inbox" / "hero.png")
            for _ in range(300):
                if recorded:
                    break
                await asyncio.sleep(0.05)
            assert recorded == ["hero"]
            assert CountingWatcher.looks >= 2  # the event's look, then the timer's
        finally:
            for watcher in watchers:
                await watcher.stop()

    asyncio.run(scenario())


def test_a_file_is_looked_at_again_when_its_quiet_spell_ends() -> None:
    async def scenario() -> None:
        settling = Settling(0.5)
        assert settling.due_in(0.0) is None  # nothing waits: no timer at all
        path = Path("hero.png")
        settling.notice(path)
        assert settling.due_in(100.0) == 0.0  # never looked at: at once
        assert not settling.settled(path, (10, 1.0), 100.0, 1)
        assert settling.due_in(100.0) == pytest.approx(0.5)
        # It grows again 0.3 s later: a writer at work; the spell starts over.
        assert not settling.settled(path, (20, 2.0), 100.3, 1)
        # The spell is now twice the writer's pause, longer than the window.
        assert settling.due_in(100.3) == pytest.approx(0.6)
        assert not settling.settled(path, (20, 2.0), 100.6, 1)
        assert settling.settled(path, (20, 2.0), 101.0, 1)
        # Not decodable yet: each further look waits longer, then it is taken to fail.
        for _ in range(1, ATTEMPTS):
            assert settling.look_again(path, 101.0)
        assert not settling.look_again(path, 101.0)
        # Gone (renamed away): forgotten, and nothing waits any more.
        assert not settling.settled(path, None, 102.0, 1)
        assert settling.due_in(102.0) is None

    asyncio.run(scenario())


def test_an_event_during_a_look_keeps_a_file_that_looked_gone() -> None:
    async def scenario() -> None:
        settling = Settling(0.5)
        path = Path("hero.png")
        settling.notice(path)  # the first hero.png moved away: an event under its name
        [(looked, events)] = settling.paths()
        assert settling.unchanged_since(path, events)
        settling.notice(path)  # meanwhile another hero.png is written
        assert not settling.unchanged_since(path, events)  # not taken on this look
        assert not settling.settled(looked, None, 100.0, events)
        assert settling.due_in(100.0) == 0.0  # not forgotten: looked at again at once
        [(_, events)] = settling.paths()
        assert not settling.settled(path, None, 100.1, events)  # now truly gone
        assert settling.due_in(100.1) is None

    asyncio.run(scenario())


def test_the_same_name_dropped_while_the_first_is_being_taken_is_taken_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second hero.png is written just after a look found the name empty, so its
    events reach the watcher while that look is still running."""
    recorded: list[str] = []
    inbox = tmp_path / "game" / "inbox"
    second = np.random.default_rng(2).integers(0, 255, (32, 32, 3), dtype=np.uint8)
    real_footprints = watch_module._footprints
    written: list[bool] = []

    def footprints_then_a_second_drop(paths: list[Path]) -> list[Any]:
        marks = real_footprints(paths)
        hero = inbox / "hero.png"
        if not written and any(p == hero and m is None for p, m in zip(paths, marks, strict=True)):
            written.append(True)
            Image.fromarray(second).save(hero)
            time.sleep(0.5)  # its events reach the event loop before this look returns
        return marks

    monkeypatch.setattr(watch_module, "_footprints", footprints_then_a_second_drop)

    def submit(request: dict[str, Any], name: str, target: Path, kind: str) -> Job:
        recorded.append(name)
        return _job(request, name, target, kind)

    async def scenario() -> None:
        (tmp_path / "game").mkdir()
        watcher = ProjectWatcher(
            {"root": str(tmp_path / "game"), "inbox": "inbox", "defaults": {"prompt": "x"}},
            submit,
            lambda digest: [],
            used_names=lambda target: set(recorded),
            stable_seconds=0.2,
        )
        await watcher.start([])
        try:
            first = np.random.default_rng(1).integers(0, 255, (32, 32, 3), dtype=np.uint8)
            Image.fromarray(first).save(inbox / "hero.png")
            for _ in range(200):
                if len(recorded) == 2:
                    break
                await asyncio.sleep(0.05)
            assert written, "the race was not staged"
            assert recorded == ["hero", "hero_2"]
            assert not (inbox / "hero.png").exists()
        finally:
            await watcher.stop()

    asyncio.run(scenario())


@pytest.mark.parametrize("engine", ["godot", "unity", "other"])
def test_a_godot_inbox_inside_the_project_is_hidden_from_godots_import(
    tmp_path: Path, engine: str
) -> None:
    """Godot imports every folder of a project but one holding a `.gdignore`: the inbox
    of a Godot project gets one (empty), so its drops, done/ and failed/ are never
    imported; other engines' inboxes get none. A drop is still taken beside it."""
    recorded: list[str] = []

    def submit(request: dict[str, Any], name: str, target: Path, kind: str) -> Job:
        recorded.append(name)
        return _job(request, name, target, kind)

    root = tmp_path / "game"
    root.mkdir()
    inbox = root / "art" / "inbox"
    watcher = ProjectWatcher(
        {"root": str(root), "engine": engine, "inbox": "art/inbox", "defaults": {"prompt": "x"}},
        submit,
        lambda digest: [],
        stable_seconds=0.2,
    )

    async def scenario() -> None:
        await watcher.start([])
        try:
            assert (inbox / ".gdignore").exists() == (engine == "godot")
            if engine == "godot":
                assert (inbox / ".gdignore").read_bytes() == b""
            pixels = np.random.default_rng(2).integers(0, 255, (32, 32, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(inbox / "hero.png")
            for _ in range(300):
                if recorded:
                    break
                await asyncio.sleep(0.05)
            assert recorded == ["hero"]  # the .gdignore itself is never a drop
            assert not list((inbox / "failed").iterdir())
        finally:
            await watcher.stop()

    asyncio.run(scenario())


def test_a_gdignore_is_never_overwritten_nor_made_outside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "game"
    inbox = root / "inbox"
    inbox.mkdir(parents=True)
    (inbox / ".gdignore").write_text("mine\n")
    outside = tmp_path / "drops"  # an inbox outside the project: Godot never sees it

    async def scenario() -> None:
        for where in ("inbox", str(outside)):
            watcher = ProjectWatcher(
                {"root": str(root), "engine": "godot", "inbox": where},
                lambda *given: _job({}, "x", root, "animation"),
                lambda digest: [],
            )
            await watcher.start([])
            await watcher.stop()

    asyncio.run(scenario())
    assert (inbox / ".gdignore").read_text() == "mine\n"
    assert (outside / "done").is_dir() and not (outside / ".gdignore").exists()
