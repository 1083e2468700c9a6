"""Mistakes on the command line cost nothing: each is refused before any quote or
write, in one line naming the flag, with its documented exit code (2 options, 1 files
and media, 3 the service). Against the embedded sandbox, no key configured."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from companion.store import Store
from tests.support.no_key import companion, one_error


def nothing_spent(home: Path) -> None:
    database = home / "companion.db"
    if database.exists():
        store = Store(database)
        try:
            assert store.jobs() == [] and store.ledger() == []
        finally:
            store.close()


@pytest.fixture
def work(tmp_path: Path) -> Path:
    draw_character(64).save(tmp_path / "cat.png")
    draw_character(64).convert("RGB").save(tmp_path / "photo.png")  # no alpha at all
    whole = (tmp_path / "cat.png").read_bytes()
    (tmp_path / "cut.png").write_bytes(whole[: len(whole) // 2])  # a valid header, cut short
    (tmp_path / "afile").write_text("mine")
    (tmp_path / "adir").mkdir()
    (tmp_path / "empty.mp4").write_bytes(b"")
    return tmp_path


ANIMATE = ["animate", "cat.png", "--prompt", "x"]
EXPORT_GODOT = ["export", "cat.png", "--formats", "godot_pack"]
# With no model named the service's own choice is not assumed (its lengths are its to
# say, at quote): the listing's lengths are held against a model named.
FULL = ["--model", "sandbox-motion-1"]


@pytest.mark.parametrize(
    "args,code,flag",
    [
        ([*ANIMATE, "--formats", "gif", "--out", "afile"], 2, "--out afile: is a file"),
        (["demo", "--out", "afile"], 2, "--out afile: is a file"),
        (  # alpha-only formats for an opaque result: asked for, or the picture's
            [*ANIMATE, "--formats", "webm_alpha", "--opaque", "--out", "o"],
            2,
            "--formats webm_alpha exists for transparency: add --transparent",
        ),
        (
            ["animate", "photo.png", "--prompt", "x", "--formats", "prores_4444", "--out", "o"],
            2,
            "prores_4444 exists for transparency: photo.png has no transparent pixels: add",
        ),
        (
            [
                "jobs",
                "add",
                "photo.png",
                "--prompt",
                "x",
                "--formats",
                "webm_alpha",
                "--target",
                "o",
            ],
            2,
            "webm_alpha exists for transparency: photo.png has no transparent pixels",
        ),
        (  # a model named: said with the lengths the live listing gives it
            [*ANIMATE, "--formats", "gif", "--seconds", "100", *FULL, "--out", "o"],
            2,
            "--seconds 100: model sandbox-motion-1 makes videos of 1, 2, 3",
        ),
        ([*ANIMATE, "--formats", "gif,mp4", "--out", "o"], 2, "'mp4' is not a format"),
        (  # a bound said plainly, with the value given
            [*ANIMATE, "--formats", "gif", "--width", "2000", "--out", "o"],
            2,
            "error: --width: must be at most 1024 (got 2000)",
        ),
        (
            ["export", "empty.mp4", "--formats", "gif", "--out", "o"],
            1,
            "empty.mp4: not a readable video (the file is empty); give a video file",
        ),
        (["animate", "adir", "--prompt", "x", "--formats", "gif", "--out", "o"], 1, "is a folder"),
        (  # decoded whole before the quote: the service would refuse it, naming nothing
            ["animate", "cut.png", "--prompt", "x", "--formats", "gif", "--out", "o"],
            1,
            "cut.png: cannot be decoded as an image (damaged, cut short",
        ),
        (
            [*ANIMATE, "--formats", "gif", "--ref", "cut.png", "--out", "o"],
            1,
            "error: --ref /",
        ),
        (
            [*EXPORT_GODOT, "--godot-res-dir", "/abs", "--out", "o"],
            2,
            "--godot-res-dir /abs",
        ),
        (
            [*ANIMATE, "--formats", "gif", "--transparent", "--key-color", "#000000", "--out", "o"],
            2,
            "--key-color #000000",
        ),
        (
            [*ANIMATE, "--formats", "spritesheet", "--out", "."],
            2,
            "would replace the input",
        ),
        (
            [*ANIMATE, "--formats", "gif", "--resolution", "4k", *FULL, "--out", "o"],
            2,
            "--resolution 4k",
        ),
        ([*ANIMATE, "--formats", "spritesheet", "--fps", "12", "--out", "o"], 2, "--fps:"),
        ([*ANIMATE, "--formats", "gif", "--model", "nosuch", "--out", "o"], 2, "--model nosuch"),
        ([*ANIMATE, "--formats", "gif", "--seconds", "20", *FULL, "--out", "o"], 2, "--seconds 20"),
        (  # between two lengths the model makes is not one of them
            [*ANIMATE, "--formats", "spritesheet", "--seconds", "7", *FULL, "--out", "o"],
            2,
            "--seconds 7: model sandbox-motion-1 makes videos of 1, 2, 3, 4, 5, 6, 8, 10 s",
        ),
        # A folder that cannot be made (no directory can be made in /proc) is refused
        # before the quote, not found out after the charge.
        ([*ANIMATE, "--formats", "gif", "--out", "/proc/x"], 2, "--out /proc/x: cannot write"),
        (
            ["jobs", "add", "cat.png", "--prompt", "x", "--formats", "gif", "--target", "/proc/x"],
            2,
            "--target /proc/x: cannot write",
        ),
        (
            [*ANIMATE, "--formats", "spritesheet_json", "--out", "o"],
            2,
            "error: --formats: output format spritesheet_json needs spritesheet; add it",
        ),
        (
            ["export", "cat.png", "--formats", "gif", "--fps", "12", "--out", "o"],
            2,
            "error: --fps: fps sampling needs the spritesheet and spritesheet_json formats",
        ),
        (
            [*ANIMATE, "--formats", "", "--out", "o"],
            2,
            "error: --formats: give at least one format, from: clip_video, ",
        ),
        (  # the folders made to check --out are gone again after a later refusal
            [*ANIMATE, "--formats", "gif", "--model", "nosuch", "--out", "o/deeper/still"],
            2,
            "--model nosuch",
        ),
    ],
)
def test_refused_before_anything_is_spent(
    work: Path, args: list[str], code: int, flag: str
) -> None:
    result = companion(work / "home", *args, cwd=work)
    assert result.returncode == code, result.stderr
    assert flag in one_error(result)
    nothing_spent(work / "home")
    assert not (work / "o").exists() and (work / "afile").read_text() == "mine"


def test_export_never_replaces_its_source(index_video: Path, tmp_path: Path) -> None:
    video = tmp_path / "testsrc2.mp4"
    video.write_bytes(index_video.read_bytes())
    result = companion(
        tmp_path / "home", "export", video.name, "--formats", "clip_video,gif", "--out", ".",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2 and "would replace the input" in one_error(result)
    assert video.read_bytes() == index_video.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["testsrc2.mp4"]


def test_export_refuses_a_selection_past_the_end(index_video: Path, tmp_path: Path) -> None:
    result = companion(
        tmp_path / "home", "export", str(index_video), "--formats", "gif",
        "--start", "1.5", "--duration", "2", "--out", str(tmp_path / "o"),
    )  # fmt: skip
    assert result.returncode == 2 and "--duration 0.5 or less" in one_error(result)
    assert not (tmp_path / "o").exists()


def test_export_out_file_and_replacements(index_video: Path, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("mine")
    common = ["export", str(index_video), "--formats", "gif", "--frame-count", "2"]
    common += ["--width", "64", "--height", "64", "--name", "clip"]
    refused = companion(tmp_path / "home", *common, "--out", str(tmp_path / "afile"))
    assert refused.returncode == 2 and "is a file" in one_error(refused)
    assert (tmp_path / "afile").read_text() == "mine"
    out = tmp_path / "o"
    assert companion(tmp_path / "home", *common, "--out", str(out)).returncode == 0
    again = companion(tmp_path / "home", *common, "--out", str(out), "--json")
    assert again.returncode == 0 and f"replacing {out / 'clip.gif'}" in again.stderr
    assert json.loads(again.stdout)["outputs"][0]["path"] == str(out / "clip.gif")


def test_wrong_key_is_one_line_for_serve_and_jobs_run(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env.update(
        COMPANION_HOME=str(tmp_path / "home"),
        COMPANION_BASE_URL=sandbox.base_url,
        COMPANION_API_KEY="sk-wrong",
    )
    for args in (["jobs", "run"], ["serve", "--port", "0"]):
        result = subprocess.run(
            [sys.executable, "-m", "companion", *args],
            capture_output=True, text=True, timeout=60, env=env,
        )  # fmt: skip
        assert result.returncode == 3, result.stderr
        last = result.stderr.strip().splitlines()[-1]
        assert "Traceback" not in result.stderr and "check COMPANION_API_KEY" in last


@pytest.mark.slow
def test_unreachable_service_is_one_line_for_jobs_run(tmp_path: Path) -> None:
    """`jobs run` gives up with one line after its retries; `companion serve` starts
    anyway (tests/integration/daemon/test_daemon_offline.py). Three tries (the retry_attempts
    setting), not the default eight: the same give-up, without waiting out 20-30 s of back-off."""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env.update(
        COMPANION_HOME=str(tmp_path / "home"),
        COMPANION_BASE_URL=f"http://127.0.0.1:{port}/v1",
        COMPANION_API_KEY="sk-anything",
        COMPANION_RETRY_ATTEMPTS="3",
    )
    result = subprocess.run(
        [sys.executable, "-m", "companion", "jobs", "run"],
        capture_output=True, text=True, timeout=150, env=env,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert "cannot reach" in lines[-1] and "COMPANION_BASE_URL" in lines[-1]
    assert "Traceback" not in result.stderr
    # Each retry is said as it happens (attempt, wait, why), not 20-31 s of silence.
    retries = [line for line in lines if line.startswith("companion: retrying GET /account")]
    assert len(retries) == 2, lines  # three tries, as set: two retries
    assert "(attempt 2 of 3)" in retries[0] and "(attempt 3 of 3)" in retries[1], lines
    assert "transport:" in retries[0], lines


@pytest.mark.slow
def test_export_replaces_only_its_own_unchanged_files(index_video: Path, tmp_path: Path) -> None:
    home, out = tmp_path / "home", tmp_path / "u"
    common = ["export", str(index_video), "--frame-count", "4", "--width", "64"]
    common += ["--height", "64", "--name", "hero", "--out", str(out)]
    out.mkdir()
    (out / "hero.gif").write_text("the user's own")
    refused = companion(home, *common, "--formats", "gif")
    assert refused.returncode == 2, refused.stderr
    assert f"--out: {out / 'hero.gif'} was not written by the companion" in one_error(refused)
    assert (out / "hero.gif").read_text() == "the user's own"

    (out / "hero.gif").unlink()
    assert companion(home, *common, "--formats", "gif").returncode == 0
    again = companion(home, *common, "--formats", "gif")
    assert again.returncode == 0 and f"replacing {out / 'hero.gif'}" in again.stderr
    (out / "hero.gif").write_bytes(b"edited by hand")
    edited = companion(home, *common, "--formats", "gif")
    assert edited.returncode == 2 and "changed since the companion wrote it" in one_error(edited)
    assert (out / "hero.gif").read_bytes() == b"edited by hand"

    # Sheet pages are named only once the sheet is laid out; a user's file among them
    # still stops the export before any page moves in.
    (out / "hero_p1.png").write_text("the user's own")
    paged = companion(home, *common, "--formats", "spritesheet", "--max-sheet-side", "70")
    assert paged.returncode == 2 and f"{out / 'hero_p1.png'} was not" in one_error(paged)
    assert sorted(p.name for p in out.iterdir()) == ["hero.gif", "hero_p1.png"]
