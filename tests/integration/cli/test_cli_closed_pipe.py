"""`companion status | head -1`: when the reader of stdout goes away the command stops
quietly with 141 (as a program stopped by SIGPIPE), never with a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import environment
from tests.support.daemon import DaemonThread


def closed_reader(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run `companion ARGS` with a stdout whose reader is already gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "companion", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            env=env,
        )
    finally:
        os.close(write_end)


def embedded(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env["COMPANION_HOME"] = str(home)
    return env


@pytest.mark.parametrize("command", [("credits",), ("account",), ("projects", "list")])
def test_a_closed_pipe_ends_quietly(tmp_path: Path, command: tuple[str, ...]) -> None:
    result = closed_reader(embedded(tmp_path / "home"), *command)
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr, result.stderr
    assert result.returncode == 141, result.stderr


@pytest.mark.slow
def test_status_and_jobs_list_into_a_closed_pipe(daemon: DaemonThread, tmp_path: Path) -> None:
    env = environment(daemon.settings.base_url, daemon.home)
    made = subprocess.run(
        [sys.executable, "-m", "companion", "demo", "--out", str(tmp_path / "made")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert made.returncode == 0, made.stderr
    for command in (("status",), ("jobs", "list")):
        result = closed_reader(env, *command)
        assert "Traceback" not in result.stderr, result.stderr
        assert result.returncode == 141, (command, result.stderr)
