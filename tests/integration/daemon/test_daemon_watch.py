"""Watched drop folders: 200 entries at once, good and bad, nothing lost or paid twice."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from companion.media.demo_art import draw_character
from tests.conftest import TEST_KEY
from tests.support.daemon import DaemonThread, call
from tests.support.drops import DEFAULTS, header_bomb, outputs_by_job, slow_write


def picture(seed: int, path: Path) -> None:
    rng = np.random.default_rng(seed)
    Image.fromarray(rng.integers(0, 255, (48, 48, 3), dtype=np.uint8)).save(path)


@pytest.fixture
def daemon(make_sandbox, tmp_path: Path):  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(task_seconds=0.2)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    assert running.daemon is not None
    running.daemon.stable_seconds = 0.4
    yield running, sandbox
    running.stop()


@pytest.mark.slow
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
    bad: dict[str, str] = {}  # name -> what its error.txt must say
    # 175 copies of three images: three jobs, each paid once.
    for i in range(175):
        name = f"copy{i:03d}.png"
        shutil.copy(originals[i % 3], staging / name)
        good.append(name)
    for i in range(6):  # wrong types and damaged images
        (staging / f"notes{i}.txt").write_text("not an image")
        bad[f"notes{i}.txt"] = "not an image"
    for i in range(4):
        (staging / f"broken{i}.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(40))
        bad[f"broken{i}.png"] = "save it again"
    Image.new("RGB", (32, 32)).save(staging / "anim.gif")
    bad["anim.gif"] = "not an image"
    picture(10, staging / "badyaml.png")
    (staging / "badyaml.yaml").write_text("prompt: [unclosed\n")
    bad["badyaml.png"] = "YAML"
    picture(11, staging / "badopt.png")
    (staging / "badopt.yaml").write_text("export:\n  output_width: 5000\n")
    bad["badopt.png"] = "output_width"
    # Hostile ones: a header bomb, a pipe, a folder where a sidecar goes, a link out.
    (staging / "bomb.png").write_bytes(header_bomb())
    bad["bomb.png"] = "20000x20000"
    os.mkfifo(staging / "pipe.png")
    bad["pipe.png"] = "not a regular file"
    picture(13, staging / "boxed.png")
    (staging / "boxed.yaml").mkdir()
    bad["boxed.png"] = "boxed.yaml is a folder"
    picture(14, tmp_path / "outside.png")
    (staging / "link.png").symlink_to(tmp_path / "outside.png")
    bad["link.png"] = "symbolic link"
    picture(12, staging / "tuned.png")
    (staging / "tuned.yaml").write_text("prompt: walk cycle\nname: tuned_walk\n")
    good.append("tuned.png")
    # Name clashes: two sidecars naming the same animation; later, another hero.png.
    picture(15, staging / "hero.png")
    good.append("hero.png")
    for i in (1, 2):
        picture(60 + i, staging / f"clash{i}.png")
        (staging / f"clash{i}.yaml").write_text("name: clash\n")
        good.append(f"clash{i}.png")
    folder = staging / "walk"
    folder.mkdir()
    draw_character(48).save(folder / "first.png")
    draw_character(56).save(folder / "last.png")
    picture(20, folder / "ref1.png")
    (folder / "animation.yaml").write_text("prompt: a walk from first to last\n")
    good.append("walk")

    # Everything lands at once (renames within one filesystem), plus slow writers (0.9 s
    # between pieces, as over a network share) and a temp-then-rename save.
    for entry in sorted(staging.iterdir()):
        entry.rename(inbox / entry.name)
    writers = [
        threading.Thread(target=slow_write, args=(inbox / f"slow{i}.png", _png_bytes(40 + i)))
        for i in range(2)
    ]
    for writer in writers:
        writer.start()
        good.append(writer._args[0].name)  # type: ignore[attr-defined]
    temporary = inbox / ".saved.png.tmp"
    temporary.write_bytes(_png_bytes(31))
    temporary.rename(inbox / "saved.png")
    good.append("saved.png")
    for writer in writers:
        writer.join()
    # The same file name again, another picture, once the first has been taken.
    deadline = time.monotonic() + 30
    while (inbox / "hero.png").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    picture(70, inbox / "hero.png")
    good.append("hero.png")
    dropped = len(good) + len(bad)
    assert dropped >= 200

    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        leftovers = [
            p
            for p in inbox.iterdir()
            if p.name not in ("done", "failed", ".processing")  # sidecars leave too
        ]
        processing = list((inbox / ".processing").iterdir())
        if not leftovers and not processing:
            break
        assert call(running, "GET", "/api/v1/health").status == 200  # still serving
        time.sleep(0.5)
    else:
        raise AssertionError(f"still waiting: {leftovers[:5]} {processing[:5]}")

    def originals_in(folder: str) -> list[str]:
        # done/ names a second file of the same name hero.1.png
        return sorted(
            p.name.replace(".1.png", ".png")
            for p in (inbox / folder).iterdir()
            if not p.name.endswith((".error.txt", ".note.txt", ".yaml"))
        )

    def sidecars_in(folder: str) -> set[str]:
        return {p.name for p in (inbox / folder).glob("*.yaml")}

    assert originals_in("done") == sorted(good), set(good) ^ set(originals_in("done"))
    assert originals_in("failed") == sorted(bad)
    assert {"tuned.yaml", "clash1.yaml", "clash2.yaml"} <= sidecars_in("done")
    assert {"badyaml.yaml", "badopt.yaml", "boxed.yaml"} <= sidecars_in("failed")
    for name, says in bad.items():
        assert says in (inbox / "failed" / f"{name}.error.txt").read_text(), name
    jobs = call(running, "GET", "/api/v1/jobs").json["data"]
    assert all(j["state"] == "done" for j in jobs)
    # 3 distinct copies + tuned + 2 clashes + 2 heroes + walk + 2 slow + saved: each
    # paid once.
    assert len(jobs) == 12
    assert sandbox.call(lambda: len(sandbox.service.state.tasks)) == 12
    names = sorted(j["name"] for j in jobs)
    assert len(set(names)) == len(names) and {"clash", "clash_2", "hero", "hero_2"} <= set(names)
    shared = {path: ids for path, ids in outputs_by_job(jobs).items() if len(ids) > 1}
    assert shared == {}
    walk = next(j for j in jobs if j["name"] == "walk")
    remote = sandbox.call(lambda: sandbox.service.state.tasks[walk["remote_id"]])
    assert remote.inputs.get("last_frame") and remote.inputs.get("reference_0")
    assert any(j["name"] == "tuned_walk" for j in jobs)
    installed = {p.name for p in (project / "animations").iterdir()}
    assert {"walk.png", "walk.json", "tuned_walk.png", "slow0.png", "saved.png"} <= installed
    assert not (tmp_path / "outside.png").with_name("outside.json").exists()
    notes = [p.read_text() for p in (inbox / "done").glob("hero*.note.txt")]
    assert any("hero_2" in note for note in notes), notes


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
