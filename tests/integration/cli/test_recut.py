"""Re-cut for free: the paid video is kept under COMPANION_HOME, and `companion recut`
exports it again without the service, byte for byte what `companion export` makes."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from companion.store import Store
from companion.store.clips import ClipStore
from companion.store.errors import ClipGone
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import companion, tasks

SMALL = ["--frame-count", "4", "--width", "64", "--height", "64"]
SHORT = ["--seconds", "1", "--resolution", "360p"]


@pytest.mark.slow
def test_recut_spends_nothing_and_matches_export(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    draw_character(64).save(tmp_path / "hero.png")
    made = companion(
        sandbox.base_url, home, "animate", str(tmp_path / "hero.png"), "--prompt", "idle",
        "--formats", "spritesheet,spritesheet_json", *SMALL, *SHORT, "--out",
        str(tmp_path / "out"),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    store = Store(home / "companion.db")
    (job,) = store.jobs()
    store.close()
    clip = home / "clips" / f"{job.id}.mp4"
    assert clip.is_file() and clip.stat().st_size > 0  # the video was not asked for: kept
    balance = api.get("/credits/balance").json["available"]
    remote = len(tasks(api))
    recut_args = ["--formats", "spritesheet,spritesheet_json,gif", "--frame-count", "6"]
    recut_args += ["--width", "96", "--height", "96", "--start", "0.2", "--duration", "0.6"]
    recut_args += ["--padding", "2", "--no-pixel-art"]  # the 64 px sprite's clip, made smooth
    recut = companion(
        sandbox.base_url, home, "recut", job.id[:8], *recut_args, "--out", str(tmp_path / "cut")
    )
    assert recut.returncode == 0, recut.stderr
    assert api.get("/credits/balance").json["available"] == balance  # the books: 0
    assert len(tasks(api)) == remote
    # The same options through export, on a copy of the same video: the same bytes. The
    # picture had transparent pixels, so the clip was made on a key colour the companion
    # chose, and the re-cut keys it out as export does when told that colour.
    key = job.request["video"]["transparency"]["key_color"]
    shutil.copyfile(clip, tmp_path / "hero.mp4")
    exported = companion(
        sandbox.base_url, home, "export", str(tmp_path / "hero.mp4"), *recut_args,
        "--transparent", "--key-color", key, "--out", str(tmp_path / "exp"),
    )  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    cut = sorted(p.name for p in (tmp_path / "cut").iterdir())
    assert cut == ["hero.gif", "hero.json", "hero.png"]
    assert cut == sorted(p.name for p in (tmp_path / "exp").iterdir())
    for name in cut:
        assert (tmp_path / "cut" / name).read_bytes() == (tmp_path / "exp" / name).read_bytes()


def test_the_clip_store_evicts_oldest_first_and_says_so(tmp_path: Path) -> None:
    clips = ClipStore(tmp_path / "clips", cap_bytes=250)
    source = tmp_path / "video.mp4"
    ids = ["a1", "b2", "c3"]
    for n, job in enumerate(ids):
        source.write_bytes(bytes([n]) * 100)
        kept = clips.keep(job, source)
        os.utime(kept, (1000 + n, 1000 + n))  # distinct ages, whatever the clock's grain
    clips.require("b2")  # a re-cut uses b2: it is the newest now
    source.write_bytes(b"d" * 100)
    clips.keep("d4", source)
    assert [j for j in [*ids, "d4"] if clips.kept(j)] == ["b2", "d4"]
    with pytest.raises(ClipGone, match=r"no longer kept.*clip_store_mb"):
        clips.require("a1")
    with pytest.raises(ClipGone, match="no kept video"):
        clips.require("e5")
    assert source.exists()  # kept by copy: the caller's file stays


def test_the_clip_store_cap_is_a_setting(tmp_path: Path) -> None:
    from companion.settings.config import load_settings
    from companion.settings.errors import ConfigError

    # Kept clips are paid assets: none is dropped until the user sets a cap.
    assert load_settings({"COMPANION_HOME": str(tmp_path)}).clip_store_mb is None
    assert load_settings({"COMPANION_HOME": str(tmp_path)}).clip_cap_bytes is None
    (tmp_path / "config.yaml").write_text("clip_store_mb: 100\n")
    assert load_settings({"COMPANION_HOME": str(tmp_path)}).clip_store_mb == 100
    env = {"COMPANION_HOME": str(tmp_path), "COMPANION_CLIP_STORE_MB": "5"}
    assert load_settings(env).clip_store_mb == 5
    (tmp_path / "config.yaml").write_text("clip_store_mb: -1\n")
    with pytest.raises(ConfigError, match="clip_store_mb"):
        load_settings({"COMPANION_HOME": str(tmp_path)})


def test_without_a_cap_every_clip_is_kept_and_listed_oldest_first(tmp_path: Path) -> None:
    clips = ClipStore(tmp_path / "clips", None)
    source = tmp_path / "video.mp4"
    for n, job in enumerate(("c1", "a2", "b3")):
        source.write_bytes(bytes([n]) * 1000)
        os.utime(clips.keep(job, source), (2000 - n * 10, 2000 - n * 10))
    assert [c.job_id for c in clips.listing()] == ["b3", "a2", "c1"]
    assert [c.size for c in clips.listing()] == [1000, 1000, 1000]
    assert clips.evict() == [] and clips.evicted() == []
    capped = ClipStore(tmp_path / "clips", 1500)  # the user sets a cap: oldest out first
    assert capped.evict() == ["b3", "a2"] and capped.evicted() == ["a2", "b3"]
    assert capped.was_evicted("a2") and not capped.was_evicted("c1")
