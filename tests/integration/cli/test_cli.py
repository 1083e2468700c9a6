"""The command as a user runs it: a real process, its exit code, stderr and --out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import in_process


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return in_process(args, os.environ)


def test_export_json_summary(index_video: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run(
        "export",
        str(index_video),
        "--formats",
        "gif,spritesheet,spritesheet_json",
        "--out",
        str(out),
        "--frame-count",
        "6",
        "--width",
        "160",
        "--height",
        "120",
        "--transparent",
        "--key-color",
        "#00FF00",
        "--name",
        "hero",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["frames"] == 6
    assert {o["format"] for o in summary["outputs"]} == {"gif", "spritesheet", "spritesheet_json"}
    for output in summary["outputs"]:
        assert Path(output["path"]).stat().st_size == output["bytes"]
    assert sorted(p.name for p in out.iterdir()) == ["hero.gif", "hero.json", "hero.png"]


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--formats", "gif,teapot"], "--formats"),
        (["--formats", "gif", "--fps", "12"], "fps sampling needs"),
        (["--formats", "spritesheet_json"], "needs spritesheet"),
        (["--formats", "gif", "--width", "2000"], "--width"),
        (["--formats", "gif", "--frame-count", "0"], "--frame-count"),
        (["--formats", "gif", "--key-color", "#00ff00"], "--key-color needs --transparent"),
        (["--formats", "gif", "--transparent", "--key-color", "green"], "hex colour"),
        (["--formats", "gif", "--transparent", "--key-color", "#808080"], "grey"),
        (["--formats", "gif", "--pivot", "middle"], "--pivot"),
        (["--formats", "gif", "--start", "5"], "--start 5"),
        (["--formats", "gif", "--name", "../evil"], "name"),
    ],
)
def test_bad_options_fail_cleanly(
    index_video: Path, tmp_path: Path, extra: list[str], message: str
) -> None:
    out = tmp_path / "out"
    result = run("export", str(index_video), "--out", str(out), *extra)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("companion: error:"), result.stderr
    assert message in lines[0]
    assert not out.exists()
    assert not any(".partial-" in p.name for p in tmp_path.iterdir())


@pytest.mark.parametrize("content", [b"not a video at all", b""])
def test_not_a_video(tmp_path: Path, content: bytes) -> None:
    bad = tmp_path / "clip.mp4"
    bad.write_bytes(content)
    out = tmp_path / "out"
    result = run("export", str(bad), "--formats", "gif", "--out", str(out))
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "companion: error:" in result.stderr
    assert not out.exists()


def test_still_image_is_not_a_video(tmp_path: Path) -> None:
    from PIL import Image

    image = tmp_path / "frame.png"
    Image.new("RGB", (64, 64), (10, 20, 30)).save(image)
    result = run("export", str(image), "--formats", "gif", "--out", str(tmp_path / "o"))
    assert result.returncode == 1 and "still image" in result.stderr


def test_existing_out_keeps_its_files_on_failure(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    bad = tmp_path / "x.mp4"
    bad.write_bytes(b"junk")
    assert run("export", str(bad), "--formats", "gif", "--out", str(out)).returncode == 1
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_openapi_command_prints_the_document() -> None:
    result = run("openapi")
    assert result.returncode == 0 and json.loads(result.stdout)["openapi"] == "3.1.0"


@pytest.mark.slow
def test_demo_runs_the_main_job_on_the_embedded_sandbox(tmp_path: Path) -> None:
    """The README's first command: one-click animation with no key configured."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env["COMPANION_HOME"] = str(tmp_path / "home")
    result = subprocess.run(
        [sys.executable, "-m", "companion", "demo", "--out", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    # Said once, however often the command opens the service.
    assert result.stderr.count("no API key configured; using the embedded sandbox") == 1
    # It says where its state lives (the README's demo wrote into the default home silently).
    home = tmp_path / "home"
    assert f"its jobs, credits and sandbox live in {home} " in result.stderr
    files = sorted(p.name for p in (tmp_path / "demo" / "animation").iterdir())
    assert len(files) == 13 and "hero.unitypackage" in files and "hero_godot.zip" in files
    assert (tmp_path / "home" / "sandbox" / "state.json").exists()


def test_exporting_a_name_again_keeps_its_files_one_set(index_video: Path, tmp_path: Path) -> None:
    """hero again with fewer formats at another size: the old hero.json (other frames) and
    pack go, a file the user changed stays and is named, a user's own file is untouched."""
    out = tmp_path / "out"
    base = ["export", str(index_video), "--out", str(out), "--name", "hero", "--frame-count"]
    first = run(*base, "4", "--width", "128", "--height", "128", "--formats",
                "spritesheet,spritesheet_json,godot_pack,gif")  # fmt: skip
    assert first.returncode == 0, first.stderr
    (out / "notes.txt").write_text("mine")
    gif = (out / "hero.gif").read_bytes()
    (out / "hero.gif").write_bytes(gif + b"\0")  # the user touched it
    second = run(*base, "6", "--width", "64", "--height", "64", "--formats", "spritesheet")
    assert second.returncode == 0, second.stderr
    assert sorted(p.name for p in out.iterdir()) == ["hero.gif", "hero.png", "notes.txt"]
    assert "hero.gif is from an earlier 'hero' and was kept" in second.stderr
    assert (out / "hero.gif").read_bytes() == gif + b"\0"
