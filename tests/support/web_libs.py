"""Phaser 3 and PixiJS from npm, installed once per machine into a shared cache folder
(npm_pinned, which other pinned npm packages use too).

.ci/run installs the same pinned versions ahead of the tests; a developer's machine
gets them on first use. A file lock keeps parallel test runs from installing twice."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from tests.support.real_chromium import unavailable

# Keep in step with the web block of .ci/run.
PINNED = {"phaser": "3.90.0", "pixi.js": "8.22.0"}
# The browser builds each test page loads (global Phaser and PIXI).
SCRIPTS = {"phaser": "dist/phaser.min.js", "pixi.js": "dist/pixi.min.js"}


def cache_root() -> Path:
    configured = os.environ.get("COMPANION_TEST_CACHE")
    if configured:
        return Path(configured)
    system = Path("/var/cache/companion-tests")
    try:
        system.mkdir(parents=True, exist_ok=True)
        if os.access(system, os.W_OK):
            return system
    except OSError:
        pass
    return Path.home() / ".cache" / "companion-tests"


def _installed(folder: Path, packages: Mapping[str, str]) -> bool:
    for package, version in packages.items():
        manifest = folder / "node_modules" / package / "package.json"
        try:
            if json.loads(manifest.read_text())["version"] != version:
                return False
        except (OSError, ValueError, KeyError):
            return False
    return True


def npm_pinned(name: str, packages: Mapping[str, str], what: str) -> Path:
    """The cache folder `name` holding packages at their pinned versions, installed by
    npm first if needed (what: what they are, for the message when they cannot be)."""
    folder = cache_root() / name
    folder.mkdir(parents=True, exist_ok=True)
    with (folder.parent / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed(folder, packages):
            npm = shutil.which("npm")
            if npm is None:
                unavailable(f"npm is not installed, so {what} cannot be fetched")
            specs = [f"{package}@{version}" for package, version in packages.items()]
            done = subprocess.run(
                [str(npm), "install", "--no-audit", "--no-fund", "--no-save", "--prefix",
                 str(folder), *specs],
                capture_output=True,
                text=True,
                timeout=600,
            )  # fmt: skip
            if done.returncode != 0 or not _installed(folder, packages):
                unavailable(f"npm install {' '.join(specs)} failed: {done.stderr[-500:]}")
    return folder


def web_libs() -> dict[str, Path]:
    """Each pinned package's browser build, installing them first if needed."""
    folder = npm_pinned("web", PINNED, "Phaser and PixiJS")
    return {name: folder / "node_modules" / name / path for name, path in SCRIPTS.items()}
