"""What several test modules share."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from companion import __version__
from companion.install.editor_plugins import source
from tests.support.paths import REPO, SUPPORT
from tests.support.real_godot import Godot, in_ci, real_godot  # noqa: F401  (the fixture)

HARNESS = SUPPORT / "godot" / "harness"

PLAY = SUPPORT / "godot" / "play.gd"

ADDON_LINE = 'enabled=PackedStringArray("res://addons/companion/plugin.cfg")'


def game(folder: Path, harness: bool) -> Path:
    """The sample project with the addon copied in (and the test harness, if asked)."""
    shutil.copytree(REPO / "samples" / "godot", folder, symlinks=False)
    shutil.copy(PLAY, folder / "play.gd")
    # Godot stores imported textures as lossless WebP by default, which takes most of a
    # minute for an 8192 px page on a busy machine; PNG is as lossless and much faster.
    with (folder / "project.godot").open("a") as settings:
        settings.write("textures/lossless_compression/force_png=true\n")
    if harness:
        shutil.copytree(HARNESS, folder / "addons" / "companion_test_harness")
        settings = folder / "project.godot"
        both = ADDON_LINE.replace(
            '.cfg")', '.cfg", "res://addons/companion_test_harness/plugin.cfg")'
        )
        settings.write_text(settings.read_text().replace(ADDON_LINE, both))
    return folder


def play(godot: Godot, project: Path, home: Path, resources: list[str]) -> dict[str, Any]:
    """Imports what the project holds, then plays each SpriteFrames in the game."""
    imported = godot.run(home, "--headless", "--import", "--path", str(project))
    assert imported.returncode == 0, imported.stderr[-2000:]
    result = project.parent / "played.json"
    ran = godot.run(
        home, "--headless", "--path", str(project), "-s", "res://play.gd", "--",
        str(result), *resources,
    )  # fmt: skip
    assert ran.returncode == 0 and result.is_file(), ran.stdout[-2000:] + ran.stderr[-2000:]
    errors = [line for line in ran.stderr.splitlines() if "ERROR" in line]
    assert not errors, "\n".join(errors)
    return dict(json.loads(result.read_text()))


def editor(godot: Godot, project: Path, home: Path, plan: Path, log: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        godot.argv("--headless", "--editor", "--path", str(project)),
        env=godot.env(
            home / "godot", COMPANION_HOME=str(home / "companion"), COMPANION_TEST_PLAN=str(plan)
        ),
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        text=True,
    )


def finished(process: subprocess.Popen[str], log: Path, results: Path) -> dict[str, Any]:
    try:
        process.wait(timeout=240)
    finally:
        if process.poll() is None:
            process.kill()
    output = log.read_text()
    assert results.is_file(), output[-3000:]
    seen: dict[str, Any] = json.loads(results.read_text())
    assert seen["failure"] == "", seen
    errors = [line for line in output.splitlines() if "ERROR" in line]
    assert not errors, output[-4000:]
    return seen


def older_addon(tmp_path: Path) -> Path:
    """The addon as an older release had it: another version, a file since dropped."""
    old = tmp_path / "old-addon"
    shutil.copytree(source("godot"), old)
    cfg = old / "plugin.cfg"
    cfg.write_text(cfg.read_text().replace(f'version="{__version__}"', 'version="0.0.9"'))
    (old / "dock.gd").write_text((old / "dock.gd").read_text() + "\n# older\n")
    (old / "retired.gd").write_text("extends Node\n")
    return old
