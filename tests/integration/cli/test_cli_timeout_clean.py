"""`companion animate --timeout` while the task runs ends with its one clean message:
the progress writes on worker threads end before the store closes (a write that met a
closed store printed a StoreClosed traceback first), the last progress read is in the
store, and the same command again resumes the job without paying a second time."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from companion.store import Store
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import companion, tasks

pytestmark = pytest.mark.slow

SMALL = ["--formats", "gif", "--frame-count", "4", "--width", "64", "--height", "64"]
SMALL += ["--seconds", "1", "--resolution", "360p"]


def test_timeout_mid_task_is_one_clean_message_and_pays_once(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(task_seconds=20.0)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    draw_character(64).save(tmp_path / "hero.png")
    args = ["animate", str(tmp_path / "hero.png"), "--prompt", "idle", *SMALL]
    args += ["--out", str(tmp_path / "out"), "--timeout", "1"]

    for run in range(3):
        cut = companion(sandbox.base_url, home, *args)
        assert cut.returncode != 0, cut.stderr
        assert "Traceback" not in cut.stderr, cut.stderr
        assert "StoreClosed" not in cut.stderr and "is closed" not in cut.stderr, cut.stderr
        assert "still running after 1 s" in cut.stderr, cut.stderr
        assert len(tasks(api)) == 1, f"run {run} made a second task"

    store = Store(home / "companion.db")
    try:
        (job,) = store.jobs()
        # The last progress the service reported was written (none lost to the close).
        assert job.progress is not None and job.progress > 0
    finally:
        store.close()

    # The same command without the timeout waits for that task: one task, one charge.
    done = companion(sandbox.base_url, home, *args[:-2])
    assert done.returncode == 0, done.stderr
    assert "nothing paid twice" in done.stderr or "nothing is paid twice" in done.stderr
    assert len(tasks(api)) == 1
    store = Store(home / "companion.db")
    try:
        assert len([e for e in store.ledger() if e["entry"] == "charge"]) == 1
    finally:
        store.close()
