"""The dock's line to the daemon in a real editor (harness: tests/support/godot/harness/live.gd):
Start daemon with `companion` off PATH runs the companion `plugin install` recorded; a
command that is not there, or that exits at once, is said with its reason; and a daemon
killed outright is seen offline, Start daemon offered, with no Refresh pressed."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.godot import game
from tests.support.real_godot import Godot, real_godot  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.godot, pytest.mark.slow]

PATH_WITHOUT_COMPANION = "/usr/local/bin:/usr/bin:/bin"


def test_start_and_loss_of_the_daemon_in_a_real_editor(
    real_godot: Godot,  # noqa: F811
    make_sandbox: Any,
    tmp_path: Path,
) -> None:
    assert shutil.which("companion", path=PATH_WITHOUT_COMPANION) is None
    sandbox = make_sandbox(task_seconds=0.3)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "companion"
    project = game(tmp_path / "game", harness=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    installed = subprocess.run(
        [sys.executable, "-m", "companion", "plugin", "install", "godot", str(project)],
        env={**env, "COMPANION_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert installed.returncode == 0, installed.stderr
    failing = tmp_path / "failing-companion"
    failing.write_text("#!/bin/sh\necho 'boom: the config is wrong' >&2\nexit 3\n")
    failing.chmod(0o755)
    plan = {
        "live": True,
        "results": str(tmp_path / "live.json"),
        "missing": str(tmp_path / "no-such-companion"),
        "failing": str(failing),
        "kill_ready": str(tmp_path / "kill-ready"),
        "killed": str(tmp_path / "killed"),
    }
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    log = (tmp_path / "editor.log").open("w")
    editor = subprocess.Popen(
        real_godot.argv("--headless", "--editor", "--path", str(project)),
        env=real_godot.env(
            tmp_path / "godot-home",
            PATH=PATH_WITHOUT_COMPANION,
            COMPANION_HOME=str(home),
            COMPANION_TEST_PLAN=str(tmp_path / "plan.json"),
            COMPANION_BASE_URL=sandbox.base_url,
            COMPANION_API_KEY=TEST_KEY,
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    started = -1
    command: list[bytes] = []
    try:
        deadline = time.monotonic() + 240
        ready = Path(plan["kill_ready"])
        while not ready.exists() and editor.poll() is None:
            assert time.monotonic() < deadline, "the harness never got to the kill step"
            time.sleep(0.2)
        if ready.exists():
            started = int(ready.read_text())
            command = Path(f"/proc/{started}/cmdline").read_bytes().split(b"\0")
            os.kill(started, signal.SIGKILL)
            Path(plan["killed"]).write_text("killed")
        editor.wait(timeout=90)
    finally:
        if editor.poll() is None:
            editor.kill()
        log.close()
        if started > 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(started, signal.SIGKILL)
    output = (tmp_path / "editor.log").read_text()
    assert Path(plan["results"]).is_file(), output[-3000:]
    seen = json.loads(Path(plan["results"]).read_text())
    assert seen["failure"] == "", seen

    assert seen["away"]["start"] and "not running" in seen["away"]["status"], seen["away"]
    # A command that is not there, one that exits at once: each said with its reason.
    assert seen["missing"].startswith(
        f"Could not start the daemon: {plan['missing']} was not found"
    ), seen["missing"]
    assert "exited: boom: the config is wrong" in seen["failing"], seen["failing"]
    # With companion off PATH, the companion that installed the addon was started.
    recorded = json.loads((home / "command.json").read_text())["command"]
    assert [part.decode() for part in command[: len(recorded) + 1]] == [*recorded, "serve"]
    balance = api.get("/credits/balance").json["available"]
    assert seen["started"]["status"] == f"Live · balance {balance} credits", seen["started"]
    assert not seen["started"]["start"] and seen["started"]["pid"] == started, seen
    # Killed: the dock says so within the wait, without Refresh, and offers to start it.
    assert seen["offline_in_time"], seen["offline"]
    offline = seen["offline"]
    assert offline["status"] == "Offline: the companion daemon is not running", offline
    assert offline["start"] and "companion serve" in offline["message"], offline
