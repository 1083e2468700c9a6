"""Watched drop folders: 200 entries at once, good and bad, nothing lost or paid twice."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from companion.media.demo_art import draw_character
from tests.conftest import TEST_KEY
from tests.daemon_helpers import DaemonThread
from tests.test_daemon import call

EXPORT = {
    "frame_count": 4,
    "output_width": 64,
    "output_height": 64,
    "output_formats": ["spritesheet", "spritesheet_json"],
}
DEFAULTS = {
    "prompt": "idle breathing",
    "export": EXPORT,
    "video": {"duration_seconds": 1, "resolution": "360p"},
}


def picture(seed: int, path: Path) -> None:
    rng = np.random.default_rng(seed)
    Image.fromarray(rng.integers(0, 255, (48, 48, 3), dtype=np.uint8)).save(path)


def slow_write(path: Path, data: bytes) -> None:
    with path.open("wb") as sink:
        for start in range(0, len(data), len(data) // 3 + 1):
            sink.write(data[start : start + len(data) // 3 + 1])
            sink.flush()
            time.sleep(0.15)


@pytest.fixture
def daemon(make_sandbox, tmp_path: Path):  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(task_seconds=0.2)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    assert running.daemon is not None
    running.daemon.stable_seconds = 0.4
    yield running, sandbox
    running.stop()


def test_two_hundred_drops(daemon, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    running, sandbox = daemon
    project = tmp_path / "game"
    inbox = project / "inbox"
    project.mkdir()
    reply = call(
        running,
        "POST",
        "/api/v1/projects",
        {"root": str(project), "inbox": "inbox", "target": "animations", "defaults": DEFAULTS},
    )
    assert reply.status == 201, reply.body
    staging = tmp_path / "staging"
    staging.mkdir()
    originals = []
    for seed in range(3):
        path = staging / f"seed{seed}.png"
        picture(seed, path)
        originals.append(path)
    good: list[str] = [p.name for p in originals]  # dropped too: the same three pictures
    bad: list[str] = []
    # 183 copies of three images: three jobs, each paid once.
    for i in range(183):
        name = f"copy{i:03d}.png"
        shutil.copy(originals[i % 3], staging / name)
        good.append(name)
    for i in range(6):  # wrong types and damaged images
        (staging / f"notes{i}.txt").write_text("not an image")
        bad.append(f"notes{i}.txt")
    for i in range(4):
        (staging / f"broken{i}.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(40))
        bad.append(f"broken{i}.png")
    Image.new("RGB", (32, 32)).save(staging / "anim.gif")
    bad.append("anim.gif")
    picture(10, staging / "badyaml.png")
    (staging / "badyaml.yaml").write_text("prompt: [unclosed\n")
    bad.append("badyaml.png")
    picture(11, staging / "badopt.png")
    (staging / "badopt.yaml").write_text("export:\n  output_width: 5000\n")
    bad.append("badopt.png")
    picture(12, staging / "tuned.png")
    (staging / "tuned.yaml").write_text("prompt: walk cycle\nname: tuned_walk\n")
    good.append("tuned.png")
    folder = staging / "walk"
    folder.mkdir()
    draw_character(48).save(folder / "first.png")
    draw_character(56).save(folder / "last.png")
    picture(20, folder / "ref1.png")
    (folder / "animation.yaml").write_text("prompt: a walk from first to last\n")
    good.append("walk")

    # Everything lands at once (renames within one filesystem), plus a slow writer and a
    # temp-then-rename save.
    for entry in sorted(staging.iterdir()):
        entry.rename(inbox / entry.name)
    writer = threading.Thread(target=slow_write, args=(inbox / "slow.png", _png_bytes(30)))
    writer.start()
    good.append("slow.png")
    temporary = inbox / ".saved.png.tmp"
    temporary.write_bytes(_png_bytes(31))
    temporary.rename(inbox / "saved.png")
    good.append("saved.png")
    writer.join()
    dropped = len(good) + len(bad)
    assert dropped >= 200

    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        leftovers = [
            p
            for p in inbox.iterdir()
            if p.name not in ("done", "failed", ".processing") and not p.name.endswith(".yaml")
        ]
        processing = list((inbox / ".processing").iterdir())
        if not leftovers and not processing:
            break
        assert call(running, "GET", "/api/v1/health").status == 200  # still serving
        time.sleep(0.5)
    else:
        raise AssertionError(f"still waiting: {leftovers[:5]} {processing[:5]}")

    done = sorted(
        p.name
        for p in (inbox / "done").iterdir()
        if not p.name.endswith((".error.txt", ".note.txt"))
    )
    failed = sorted(
        p.name
        for p in (inbox / "failed").iterdir()
        if not p.name.endswith((".error.txt", ".note.txt"))
    )
    assert sorted(done) == sorted(good), set(good) ^ set(done)
    assert sorted(failed) == sorted(bad)
    for name in bad:
        reason = (inbox / "failed" / f"{name}.error.txt").read_text()
        assert reason.strip(), name
    assert "YAML" in (inbox / "failed" / "badyaml.png.error.txt").read_text()
    assert "output_width" in (inbox / "failed" / "badopt.png.error.txt").read_text()
    assert "not an image" in (inbox / "failed" / "notes0.txt.error.txt").read_text()
    jobs = call(running, "GET", "/api/v1/jobs").json["data"]
    assert all(j["state"] == "done" for j in jobs)
    # 3 distinct copies + tuned + walk + slow + saved: each paid once.
    assert len(jobs) == 7
    assert sandbox.call(lambda: len(sandbox.service.state.tasks)) == 7
    walk = next(j for j in jobs if j["name"] == "walk")
    remote = sandbox.call(lambda: sandbox.service.state.tasks[walk["remote_id"]])
    assert remote.inputs.get("last_frame") and remote.inputs.get("reference_0")
    assert any(j["name"] == "tuned_walk" for j in jobs)
    installed = {p.name for p in (project / "animations").iterdir()}
    assert {"walk.png", "walk.json", "tuned_walk.png", "slow.png", "saved.png"} <= installed


def _png_bytes(seed: int) -> bytes:
    import io

    buffer = io.BytesIO()
    rng = np.random.default_rng(seed)
    Image.fromarray(rng.integers(0, 255, (48, 48, 3), dtype=np.uint8)).save(buffer, "PNG")
    return buffer.getvalue()


def test_drops_made_while_the_daemon_was_down(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(task_seconds=0.2)
    home = tmp_path / "home"
    project = tmp_path / "game"
    project.mkdir()
    first = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    call(
        first,
        "POST",
        "/api/v1/projects",
        {"root": str(project), "inbox": "inbox", "defaults": DEFAULTS},
    )
    first.stop()
    picture(40, project / "inbox" / "while_down.png")  # nobody is watching now
    second = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if (project / "inbox" / "done" / "while_down.png").exists():
                break
            time.sleep(0.2)
        assert (project / "inbox" / "done" / "while_down.png").exists()
        assert (project / "animations" / "while_down.png").exists()
    finally:
        second.stop()


def test_polling_observer_for_network_drives(daemon, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    running, _ = daemon
    project = tmp_path / "share"
    project.mkdir()
    reply = call(
        running,
        "POST",
        "/api/v1/projects",
        {"root": str(project), "inbox": "drop", "poll": True, "defaults": DEFAULTS},
    )
    assert reply.status == 201
    watcher = running.daemon.watchers[str(project.resolve())]
    assert type(watcher._observer).__name__ == "PollingObserver"
    picture(50, project / "drop" / "polled.png")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (project / "drop" / "done" / "polled.png").exists():
        time.sleep(0.2)
    assert (project / "drop" / "done" / "polled.png").exists()
    assert (project / "animations" / "polled.png").exists()
