"""`companion animate` pays once for one animation: the same command after it is done
points at the outputs still in --out (exit 0, nothing spent), --again makes a new one,
and a Ctrl-C that lands once the job is done is no interruption (exit 0, not 130)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from companion.store import Store
from tests.conftest import TEST_KEY, both_faces
from tests.support.calls import Api
from tests.support.cli import companion, environment, tasks

pytestmark = [pytest.mark.slow, both_faces]  # a money test: on both faces

SMALL = ["--formats", "gif", "--frame-count", "4", "--width", "64", "--height", "64"]
SMALL += ["--seconds", "1", "--resolution", "360p"]


def charges(home: Path) -> int:
    store = Store(home / "companion.db")
    try:
        return len([e for e in store.ledger() if e["entry"] == "charge"])
    finally:
        store.close()


def test_the_same_command_after_done_pays_nothing(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    api = Api(sandbox.base_url, key=TEST_KEY)
    home, out = tmp_path / "home", tmp_path / "out"
    draw_character(64).save(tmp_path / "hero.png")
    args = ["animate", str(tmp_path / "hero.png"), "--prompt", "idle", *SMALL, "--out", str(out)]

    first = companion(sandbox.base_url, home, *args)
    assert first.returncode == 0, first.stderr
    job = next(line.split()[2] for line in first.stderr.splitlines() if " on " in line)
    made = (out / "hero.gif").read_bytes()

    again = companion(sandbox.base_url, home, *args)
    assert again.returncode == 0, again.stderr
    assert (
        f"companion: already made by job {job}; outputs in {out} "
        "(add --again to make a new one)" in again.stderr.splitlines()
    )
    assert str(out / "hero.gif") in again.stdout
    assert len(tasks(api)) == 1 and charges(home) == 1
    assert (out / "hero.gif").read_bytes() == made

    forced = companion(sandbox.base_url, home, *args, "--again")
    assert forced.returncode == 0, forced.stderr
    assert f"will replace {out / 'hero.gif'}" in forced.stderr
    assert len(tasks(api)) == 2 and charges(home) == 2

    (out / "hero.gif").write_bytes(b"the user's own edit")  # no longer the outputs made
    edited = companion(sandbox.base_url, home, *args)
    assert edited.returncode == 2 and "changed since the companion wrote it" in edited.stderr
    assert len(tasks(api)) == 2 and charges(home) == 2


def _stopped(pid: int) -> bool:
    """The process came to be held by SIGSTOP (a signal lands a moment after it is
    sent), or False: it had already exited, and a zombie takes no signal."""
    for _ in range(500):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        if state in ("T", "t"):
            return True
        if state in ("Z", "X"):
            return False
        time.sleep(0.01)
    return False


def test_ctrl_c_once_the_job_is_done_is_no_interruption(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    api = Api(sandbox.base_url, key=TEST_KEY)
    draw_character(64).save(tmp_path / "hero.png")
    # The Ctrl-C must land between "done" and the exit, a window the command does not
    # hold open: on a busy machine the command may have exited before this test read its
    # line. Such a try is told apart (the process took no SIGSTOP) and made again anew.
    for attempt in range(5):
        home, out = tmp_path / f"home{attempt}", tmp_path / f"out{attempt}"
        args = [
            "animate",
            str(tmp_path / "hero.png"),
            "--prompt",
            "idle",
            *SMALL,
            "--out",
            str(out),
        ]
        running = subprocess.Popen(
            [sys.executable, "-m", "companion", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment(sandbox.base_url, home),
        )
        assert running.stderr is not None
        seen: list[str] = []
        held = False
        for line in running.stderr:
            seen.append(line)
            if line.startswith("job ") and line.rstrip().endswith(" done"):
                # Held still, so the Ctrl-C lands after the job is done, before it exits.
                running.send_signal(signal.SIGSTOP)
                held = _stopped(running.pid)
                if held:
                    running.send_signal(signal.SIGINT)
                running.send_signal(signal.SIGCONT)
                break
        rest = running.stderr.read()
        running.wait(timeout=60)
        assert running.returncode == 0, "".join(seen) + rest
        if held:
            break
    else:
        pytest.fail("the command always exited before its Ctrl-C could land")
    # It says it was interrupted after the work was done, or, when the Ctrl-C landed while
    # the finished command was closing its connections (asyncio turns a Ctrl-C into a
    # cancellation, which closing code may absorb), simply ends as it would have: either
    # way exit 0, the usual report, no traceback.
    assert "Traceback" not in rest and "interrupted; run the same" not in rest, rest
    assert "interrupted after job" in rest or ": done; charged" in rest, rest
    assert (out / "hero.gif").is_file()

    again = companion(sandbox.base_url, home, *args)  # what the user does next: no new task
    assert again.returncode == 0 and "already made by job" in again.stderr
    assert len(tasks(api)) == attempt + 1 and charges(home) == 1  # one task a try
