"""While it waits, the command line says what it does: a bar on a terminal (a real
pseudo-terminal here), plain lines in a pipe or with --json."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from tests.support.calls import Api
from tests.support.cli import companion, environment, tasks

pytestmark = pytest.mark.slow

ARGS = ["--prompt", "idle", "--formats", "gif,spritesheet", "--frame-count", "4"]
ARGS += ["--width", "64", "--height", "64", "--seconds", "1", "--resolution", "360p"]


def on_a_terminal(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal, as a person at a terminal sees it."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", *args],
        stdout=subprocess.PIPE,
        stderr=slave,
        env={**env, "TERM": "xterm", "COLUMNS": "120"},
    )
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    stdout = process.communicate(timeout=30)[0].decode()
    os.close(master)
    return process.returncode, stdout, seen.decode(errors="replace")


def test_a_terminal_gets_a_progress_bar_for_generation_and_downloads(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=1.0)
    draw_character(64).save(tmp_path / "hero.png")
    env = environment(sandbox.base_url, tmp_path / "home")
    code, stdout, stderr = on_a_terminal(
        env, "animate", str(tmp_path / "hero.png"), *ARGS, "--out", str(tmp_path / "out")
    )
    assert code == 0, stderr
    assert "━" in stderr and "%" in stderr  # rich's bar with its percent
    # The video alone is bought: its download is shown, then the files are made here.
    assert "generating (" in stderr and "downloading hero (the video)" in stderr
    assert " of " in stderr and "kB" in stderr  # bytes of a download
    assert "━" not in stdout
    # `assets download` draws one for its file too.
    asset = tasks(Api(sandbox.base_url))[0]["outputs"][0]["id"]
    target = tmp_path / "asset.bin"
    code, stdout, stderr = on_a_terminal(env, "assets", "download", asset, "--out", str(target))
    assert code == 0, stderr
    assert "downloading asset.bin" in stderr and "━" in stderr and target.exists()


def test_a_pipe_or_json_gets_plain_lines(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    # Long enough to be said even when a loaded machine spaces the polls out: a line is
    # said once a stage has run a second, at a poll that still finds it running.
    sandbox = make_sandbox(task_seconds=6.0)
    draw_character(64).save(tmp_path / "hero.png")
    piped = companion(
        sandbox.base_url, tmp_path / "home", "animate", str(tmp_path / "hero.png"), *ARGS,
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert piped.returncode == 0, piped.stderr
    said = [line for line in piped.stderr.splitlines() if line.startswith("companion: generating")]
    assert said and said[-1].endswith("%"), piped.stderr
    assert "\x1b[" not in piped.stderr and "━" not in piped.stderr
    env = environment(sandbox.base_url, tmp_path / "home2")
    code, stdout, stderr = on_a_terminal(
        env, "animate", str(tmp_path / "hero.png"), *ARGS, "--out", str(tmp_path / "o2"), "--json"
    )
    assert code == 0, stderr
    assert "━" not in stderr and "companion: generating (" in stderr
    assert json.loads(stdout)["state"] == "done"


def test_export_shows_its_progress(index_video: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env["COMPANION_HOME"] = str(tmp_path / "home")
    args = ["export", str(index_video), "--formats", "gif", "--frame-count", "8"]
    args += ["--width", "64", "--height", "64", "--out", str(tmp_path / "out")]
    code, _, stderr = on_a_terminal(env, *args)
    assert code == 0, stderr
    assert "decoding and writing frames" in stderr and "━" in stderr and "100%" in stderr
