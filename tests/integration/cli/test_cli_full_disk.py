"""A full disk while the outputs are written here: one line that says what happened and
what to do, no traceback, the job failed with that reason, the credits charged once;
with room made, the same command finishes the job and pays nothing more. The disk is a
small tmpfs mounted over the output folder (root only; CI runs as root)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.media import draw_character
from companion.store import Store
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.mounts import mount_tmpfs, unmount


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "small"
    folder.mkdir()
    mount_tmpfs(folder, "size=48k", "small disk")
    try:
        yield folder
    finally:
        unmount(folder)


def test_a_full_disk_says_so_and_the_same_command_finishes_free(
    make_sandbox: Any, small_disk: Path, tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    picture = tmp_path / "hero.png"
    draw_character(64).save(picture)
    animate = [
        "animate", str(picture), "--prompt", "idle", "--frame-count", "8", "--seconds", "1",
        "--resolution", "360p", "--formats", "spritesheet,gif,frames_zip,godot_pack",
        "--out", str(small_disk),
    ]  # fmt: skip
    before = api.get("/credits/balance").json["available"]
    full = companion(sandbox.base_url, home, *animate)
    assert full.returncode == 1, full.stderr
    assert "Traceback" not in full.stderr, full.stderr
    said = [line for line in full.stderr.splitlines() if line.startswith("companion: error:")]
    assert len(said) == 1, full.stderr
    assert "No space left on device" in said[0] and "without paying" in said[0], said[0]
    paid = before - api.get("/credits/balance").json["available"]
    assert paid > 0
    store = Store(home / "companion.db")
    try:
        (job,) = store.jobs()
        assert job.state == "failed" and "No space left on device" in (job.error or "")
    finally:
        store.close()

    subprocess.run(["mount", "-o", "remount,size=4m", str(small_disk)], check=True)
    again = companion(sandbox.base_url, home, *animate)
    assert again.returncode == 0, again.stderr
    assert before - api.get("/credits/balance").json["available"] == paid  # nothing more
    names = sorted(p.name for p in small_disk.iterdir())
    assert {"hero.png", "hero.gif", "hero_frames.zip"} <= set(names), names
    assert not [n for n in names if "staging" in n or "partial" in n], names
