"""`companion jobs cancel J` while `companion animate` waits on J: once the cancel is
seen the running command says the job's end and nothing more (no "downloading" or
"installing" for a task that kept nothing). Real processes, sandbox on loopback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from tests.support.cli import companion, environment

SMALL = ["--formats", "spritesheet", "--frame-count", "4", "--width", "64", "--height", "64"]
SMALL += ["--seconds", "1", "--resolution", "360p"]


@pytest.mark.slow
def test_animate_stops_at_cancelled(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    base = make_sandbox(task_seconds=20).base_url  # long enough to cancel while it generates
    home = tmp_path / "home"
    draw_character(64).save(tmp_path / "hero.png")
    args = ["animate", str(tmp_path / "hero.png"), "--prompt", "walk", *SMALL]
    running = subprocess.Popen(
        [sys.executable, "-m", "companion", *args, "--out", str(tmp_path / "out")],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=environment(base, home),
    )
    assert running.stderr is not None
    said: list[str] = []
    try:
        for line in running.stderr:
            said.append(line.rstrip("\n"))
            if line.startswith("job ") and line.rstrip().endswith(" running"):
                job = line.split()[1]
                cancel = companion(base, home, "jobs", "cancel", job)
                assert cancel.returncode == 0, cancel.stderr
        running.wait(timeout=120)
    finally:
        running.kill()
    after = said[next(i for i, s in enumerate(said) if s.endswith(" running")) :]
    assert any(s.endswith(" cancelled") for s in after), said
    ended = next(i for i, s in enumerate(after) if s.endswith(" cancelled"))
    shown = [s for s in after[:ended] if s.startswith("job ")]
    assert shown == [after[0]], said  # nothing between running and cancelled
    assert running.returncode != 0, said
