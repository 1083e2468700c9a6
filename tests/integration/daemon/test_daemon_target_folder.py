"""A target folder the outputs cannot go into is refused before anything is spent: a file
named as the folder, a folder under a file, a folder that cannot be written. Was: the
quote answered 200 with no conflicts, the animate 202, the credits were charged and the
job failed "Not a directory". Against a sandbox and a daemon on loopback."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from companion.install import folder_refusal
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.daemon import DaemonThread, body, call, godot_project, wait_final
from tests.support.mounts import mount_tmpfs, unmount


@pytest.fixture
def read_only() -> Iterator[Callable[[Path], Path]]:
    """Makes a folder nobody can write into. Root writes through permission bits, so as
    root the folder is a read-only mount instead (unmounted afterwards)."""
    made: list[Path] = []

    def make(folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() != 0:
            folder.chmod(0o555)
        else:
            mount_tmpfs(folder, "ro,size=64k", "read-only folder")
        made.append(folder)
        return folder

    yield make
    for folder in made:
        if os.geteuid() != 0:
            folder.chmod(0o755)
        else:
            unmount(folder)


def test_folder_refusal_says_what_is_wrong_and_leaves_nothing(tmp_path: Path, read_only) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.txt").write_text("x")
    assert folder_refusal(tmp_path / "a.txt", "--out a.txt") == (
        "--out a.txt: is a file; give a folder for the outputs"
    )
    assert folder_refusal(tmp_path / "a.txt" / "b", "--out b") == (
        f"--out b: {tmp_path / 'a.txt'} is a file; give a folder for the outputs"
    )
    locked = read_only(tmp_path / "locked")
    for folder in (locked, locked / "new" / "deeper"):
        said = folder_refusal(folder, "--out x")
        assert said is not None and said.startswith("--out x: cannot write there (")
        assert said.endswith("); choose a folder you can write to")
    # A folder that can be made is proved by making it, then removed again.
    assert folder_refusal(tmp_path / "new" / "deeper", "--out n") is None
    assert not (tmp_path / "new").exists()
    assert folder_refusal(tmp_path, "--out t") is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "locked"]


@pytest.mark.parametrize(
    "where,said",
    [
        ("art/hero.png", "target_folder: art/hero.png: is a file; give a folder"),
        ("art/hero.png/anims", "hero.png is a file; give a folder for the outputs"),
        ("locked", "target_folder: locked: cannot write there ("),
        ("locked/anims", "target_folder: locked/anims: cannot write there ("),
    ],
)
def test_an_unusable_target_folder_is_refused_before_anything_is_spent(
    make_sandbox, tmp_path: Path, read_only, where: str, said: str
) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(task_seconds=0.2)
    api = Api(sandbox.base_url, key=TEST_KEY)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        read_only(project / "locked")
        balance = api.get("/credits/balance").json["available"]
        for path in ("/api/v1/quote", "/api/v1/animate"):
            refused = call(daemon, "POST", path, body(project, target_folder=where))
            assert refused.status == 400, (path, refused.body)
            assert refused.error["code"] == "INVALID"
            assert said in refused.error["message"], refused.error["message"]
        assert call(daemon, "GET", "/api/v1/jobs").json["data"] == []
        assert api.get("/credits/balance").json["available"] == balance
        assert not (project / "locked" / "anims").exists()
    finally:
        daemon.stop()


def test_recut_and_import_refuse_an_unusable_target_folder(
    make_sandbox, tmp_path: Path, read_only
) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(task_seconds=0.2)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        read_only(project / "locked")
        first = call(daemon, "POST", "/api/v1/animate", body(project)).json["id"]
        assert wait_final(daemon, first)["state"] == "done"
        base = f"/api/v1/generations/{first}"
        for where in ("art/hero.png", "locked"):
            for action, sent in (("recut", {"export": {"frame_count": 2}}), ("import", {})):
                refused = call(daemon, "POST", f"{base}/{action}", {**sent, "target_folder": where})
                assert refused.status == 400, (action, where, refused.body)
                assert refused.error["message"].startswith(f"target_folder: {where}: ")
        assert len(call(daemon, "GET", "/api/v1/jobs").json["data"]) == 1
    finally:
        daemon.stop()
