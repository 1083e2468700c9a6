"""`companion plugin install godot` and the Asset Library zip, held to a real headless
Godot 4: the editor opens with the Animate dock and no ERROR line after an install and an
update over an older version, opens clean after uninstall, and the packed zip unpacked
into another fresh project gives the same; there, against a daemon of another version,
the dock shows the command that fixes it and the daemon logs the plugin's version. Three
editor starts in all."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion import __version__
from companion.daemon.routes import status as status_routes
from companion.install.editor_plugins import install
from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.daemon import DaemonThread
from tests.support.godot import older_addon
from tests.support.paths import SUPPORT
from tests.support.real_godot import Godot, real_godot  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.godot, pytest.mark.slow]

PROBE = SUPPORT / "godot" / "probe"
FRESH = """config_version=5

[application]

config/name="Fresh"

[editor_plugins]

enabled=PackedStringArray("res://addons/companion_probe/plugin.cfg")
"""


def fresh(folder: Path) -> Path:
    """An empty Godot project with only the test probe in it."""
    (folder / "addons").mkdir(parents=True)
    (folder / "project.godot").write_text(FRESH)
    (folder / "addons" / "companion_probe").mkdir()
    for name in ("plugin.cfg", "probe.gd"):
        (folder / "addons" / "companion_probe" / name).write_bytes((PROBE / name).read_bytes())
    return folder


def companion(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COMPANION_HOME": str(home)}
    env.pop("COMPANION_API_KEY", None)
    done = subprocess.run(
        [sys.executable, "-m", "companion", *args],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def open_editor(godot: Godot, project: Path, home: Path) -> dict[str, Any]:
    """One headless editor start; what the probe saw, and no ERROR line."""
    out = project.parent / f"{project.name}-probe.json"
    out.unlink(missing_ok=True)
    ran = godot.run(
        home / "godot",
        "--headless", "--editor", "--path", str(project),
        timeout=180,
        COMPANION_HOME=str(home),
        COMPANION_PROBE_OUT=str(out),
    )  # fmt: skip
    output = ran.stdout + ran.stderr
    errors = [line for line in output.splitlines() if "ERROR" in line]
    assert not errors, output[-3000:]
    assert out.is_file(), output[-3000:]
    seen: dict[str, Any] = json.loads(out.read_text())
    return seen


def test_install_update_uninstall_and_the_zip_in_a_real_editor(
    real_godot: Godot,  # noqa: F811
    make_sandbox: Callable[..., SandboxThread],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    game = fresh(tmp_path / "game")
    # An older release installed first, then this one over it.
    install("godot", game, older_addon(tmp_path))
    updated = companion(home, "plugin", "install", "godot", str(game))
    assert f"0.0.9 -> {__version__}" in updated.stdout
    assert not (game / "addons/companion/retired.gd").exists()
    seen = open_editor(real_godot, game, home)
    offline = "Offline: the companion daemon is not running"
    assert seen == {"dock": True, "version": __version__, "status": offline}

    # The editor made files beside ours (.uid, .import); uninstall takes them too.
    companion(home, "plugin", "uninstall", "godot", str(game))
    assert not (game / "addons" / "companion").exists()
    assert (game / "project.godot").read_text().count("companion/plugin.cfg") == 0
    assert open_editor(real_godot, game, home) == {"dock": False, "version": "", "status": ""}

    # The Asset Library zip unpacked into another fresh project, enabled as a user does in
    # Project Settings > Plugins (which writes this same line).
    companion(home, "plugin", "pack", "--out", str(tmp_path / "dist"))
    other = fresh(tmp_path / "other")
    with zipfile.ZipFile(tmp_path / "dist" / f"companion-godot-{__version__}.zip") as archive:
        archive.extractall(other)
    settings = other / "project.godot"
    settings.write_text(
        settings.read_text().replace(
            'plugin.cfg")', 'plugin.cfg", "res://addons/companion/plugin.cfg")'
        )
    )
    # A daemon of another version runs: the dock says so with the one command that fixes
    # it, and the daemon logs which plugin version talks to it.
    sandbox = make_sandbox()
    monkeypatch.setattr(status_routes, "__version__", "9.9.9")
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        with caplog.at_level(logging.WARNING, logger="companion.daemon"):
            seen = open_editor(real_godot, other, home)
    finally:
        daemon.stop()
    assert seen["dock"] and seen["version"] == __version__, seen
    fix = f'companion plugin install godot "{other.resolve()}"'
    assert seen["status"].splitlines()[1:] == [
        f"companion 9.9.9, this addon {__version__}: run  {fix}"
    ], seen
    told = [r.getMessage() for r in caplog.records if "plugin" in r.getMessage()]
    assert told == [
        f"the godot plugin {__version__} talks to companion 9.9.9; update it in its project "
        "with: companion plugin install godot PROJECT"
    ]
