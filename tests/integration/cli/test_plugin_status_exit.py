"""`companion plugin status ENGINE PROJECT` says by its exit code whether the plugin is
installed (1 when it is not), so `companion plugin status godot . && ...` means it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.no_key import companion


@pytest.mark.slow
def test_status_exits_1_until_the_plugin_is_installed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    game = tmp_path / "game"
    game.mkdir()
    (game / "project.godot").write_text("config_version=5\n")
    missing = companion(home, "plugin", "status", "godot", str(game))
    assert missing.returncode == 1, missing.stdout + missing.stderr
    assert "not installed" in missing.stdout and "companion plugin install godot" in missing.stdout
    as_json = companion(home, "plugin", "status", "godot", str(game), "--json")
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["installed"] is None
    installed = companion(home, "plugin", "install", "godot", str(game))
    assert installed.returncode == 0, installed.stderr
    present = companion(home, "plugin", "status", "godot", str(game))
    assert present.returncode == 0 and "current" in present.stdout, present.stdout
    help_text = " ".join(companion(home, "plugin", "status", "--help").stdout.split())
    assert "exit 1 when it is not installed" in help_text, help_text
