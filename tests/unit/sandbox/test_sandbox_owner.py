"""The embedded sandbox has one owner per COMPANION_HOME: a daemon and a command sharing
the home see one account, and the daemon stopping never writes an older copy of it
over the command's charge."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.media.demo_art import draw_character

pytestmark = pytest.mark.slow


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env["COMPANION_HOME"] = str(home)
    return env


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=_env(home),
        check=False,
    )


def test_a_command_beside_the_daemon_spends_on_the_same_account(tmp_path: Path) -> None:
    home = tmp_path / "home"
    image = tmp_path / "hero.png"
    draw_character(48).save(image)
    daemon = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--port", "0"],
        env=_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        owner = home / "sandbox" / "owner.json"
        for _ in range(300):
            if owner.exists():
                break
            assert daemon.poll() is None, daemon.stderr.read() if daemon.stderr else ""
            time.sleep(0.1)
        served = json.loads(owner.read_text())
        assert served["pid"] == daemon.pid and served["long_lived"] is True
        made = _run(
            home, "animate", str(image), "--prompt", "idle", "--formats", "spritesheet",
            "--frame-count", "4", "--width", "64", "--height", "64",
            "--seconds", "1", "--resolution", "360p", "--out", str(tmp_path / "out"),
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        during = json.loads(_run(home, "credits", "--json").stdout)
        assert during["spent_today"] > 0 and during["available"] == 1000 - during["spent_today"]
    finally:
        daemon.send_signal(signal.SIGINT)
        daemon.wait(timeout=60)
    assert not owner.exists()
    after = json.loads(_run(home, "credits", "--json").stdout)
    assert after["available"] == 1000 - after["spent_today"] == during["available"]
    assert after["agree"] is True
