"""A name that would meet a file the install may not replace is found before the quote
is paid, and the free name is offered: the daemon's quote says it (name_suggestion),
its animate refuses with it, the command line says which --name to give. A numbered
name stays within the byte limit every file system takes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.install.safety.names import free_name, numbered
from companion.media import MAX_NAME_BYTES, is_clean_name
from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import companion, tasks
from tests.support.daemon import DaemonThread, call
from tests.support.drops import DEFAULTS, png_bytes
from tests.support.paid import creates


@pytest.mark.parametrize("wanted", ["飛" * 53, "🐉" * 40, "é" * 64, "a" * 64, "x"])
def test_a_numbered_name_stays_within_the_byte_limit(wanted: str, tmp_path: Path) -> None:
    (tmp_path / f"{wanted}.png").write_bytes(b"someone's")
    for n in (2, 10, 1000):
        name = numbered(wanted, n)
        assert is_clean_name(name) and name.endswith(f"_{n}"), name
        assert len(name.encode()) <= MAX_NAME_BYTES
    free = free_name(wanted, {wanted}, tmp_path)
    assert free == numbered(wanted, 2) and len(free.encode()) <= MAX_NAME_BYTES


def test_a_name_is_free_only_when_none_of_its_files_exist(tmp_path: Path) -> None:
    (tmp_path / "hero_2_godot.zip").write_bytes(b"a file of the name hero_2")
    free = free_name("hero", {"Hero"}, tmp_path, lambda n: [tmp_path / f"{n}_godot.zip"])
    assert free == "hero_3"


def test_the_api_offers_the_free_name_before_anything_is_paid(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.2, journal=True)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = tmp_path / "game"
        (project / "animations").mkdir(parents=True)
        (project / "hero.png").write_bytes(png_bytes(3))
        (project / "animations" / "hero.png").write_bytes(b"the artist's own sheet")
        assert call(running, "POST", "/api/v1/projects", {"root": str(project)}).status == 201
        body: dict[str, Any] = {"project_root": str(project), "image_path": "hero.png"}
        body.update(DEFAULTS, name="hero")
        quote = call(running, "POST", "/api/v1/quote", body)
        assert quote.status == 200, quote.body
        assert quote.json["conflicts"] and quote.json["name_suggestion"] == "hero_2"
        refused = call(running, "POST", "/api/v1/animate", body)
        assert refused.status == 409 and refused.error["code"] == "CONFLICT"
        assert refused.error["name_suggestion"] == "hero_2"
        assert "another name ('hero_2' is free" in refused.error["message"]
        assert creates(sandbox) == []  # nothing sent to be paid for
        clear = call(running, "POST", "/api/v1/quote", {**body, "name": "hero_2"})
        assert clear.json["conflicts"] == [] and clear.json["name_suggestion"] is None
        taken = call(running, "POST", "/api/v1/animate", {**body, "name": "hero_2"})
        assert taken.status == 202 and taken.json["name"] == "hero_2"
        assert (project / "animations" / "hero.png").read_bytes() == b"the artist's own sheet"
    finally:
        running.stop()


@pytest.mark.slow
def test_the_cli_says_which_name_to_give_before_anything_is_paid(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.2)
    home, out = tmp_path / "home", tmp_path / "out"
    out.mkdir()
    draw_character(64).save(tmp_path / "勇者.png")
    (out / "勇者.gif").write_bytes(b"the artist's own")
    args = ["animate", str(tmp_path / "勇者.png"), "--prompt", "idle", "--formats", "gif"]
    args += ["--frame-count", "4", "--width", "64", "--height", "64", "--seconds", "1"]
    args += ["--resolution", "360p", "--out", str(out)]
    refused = companion(sandbox.base_url, home, *args)
    assert refused.returncode == 2, refused.stderr
    assert f"Give --name 勇者_2 (free in {out})" in refused.stderr
    assert "nothing was spent" in refused.stderr
    assert tasks(Api(sandbox.base_url, key=TEST_KEY)) == []
    renamed = companion(sandbox.base_url, home, *args, "--name", "勇者_2")
    assert renamed.returncode == 0, renamed.stderr
    assert (out / "勇者_2.gif").exists() and (out / "勇者.gif").read_bytes() == b"the artist's own"
