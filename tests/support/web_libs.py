"""Phaser 3 and PixiJS from npm, installed once per machine into a shared cache folder.

.ci/run installs the same pinned versions ahead of the tests; a developer's machine
gets them on first use. A file lock keeps parallel test runs from installing twice."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
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


def _installed(folder: Path) -> bool:
    for package, version in PINNED.items():
        manifest = folder / "node_modules" / package / "package.json"
        try:
            if json.loads(manifest.read_text())["version"] != version:
                return False
        except (OSError, ValueError, KeyError):
            return False
    return True


def web_libs() -> dict[str, Path]:
    """Each pinned package's browser build, installing them first if needed."""
    folder = cache_root() / "web"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder.parent / "web.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed(folder):
            npm = shutil.which("npm")
            if npm is None:
                unavailable("npm is not installed, so Phaser and PixiJS cannot be fetched")
            specs = [f"{name}@{version}" for name, version in PINNED.items()]
            done = subprocess.run(
                [
                    str(npm),
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--no-save",
                    "--prefix",
                    str(folder),
                    *specs,
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
            if done.returncode != 0 or not _installed(folder):
                unavailable(f"npm install {' '.join(specs)} failed: {done.stderr[-500:]}")
    return {name: folder / "node_modules" / name / path for name, path in SCRIPTS.items()}
