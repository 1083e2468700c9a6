"""Headless Debian Chromium for the tests that need a real browser.

A test that needs it calls `require_chromium()`: outside CI a missing browser skips the
test, with CI=true it fails (.ci/run installs the package). Each run gets a fresh
profile and no network beyond what the page asks of loopback."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def unavailable(reason: str) -> None:
    """Skip outside CI; in CI the missing component is a failure."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: .ci/run must provide it)")
    pytest.skip(reason)


def require_chromium() -> str:
    if CHROMIUM is None:
        unavailable("chromium is not installed (.ci/run installs it)")
    assert CHROMIUM is not None
    return CHROMIUM


def chromium(profile: Path, url: str, *extra: str, budget_ms: int = 5000) -> str:
    """Load `url` in a fresh profile under `profile` and return Chromium's stdout (the
    DOM with --dump-dom). Virtual time lets the page's own timers and loads finish."""
    browser = require_chromium()
    result = subprocess.run(
        [
            browser,
            *FLAGS,
            f"--user-data-dir={profile / 'chrome'}",
            f"--virtual-time-budget={budget_ms}",
            *extra,
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return result.stdout


def chromium_until(profile: Path, url: str, done: threading.Event, *, hang: float = 600) -> None:
    """Open `url` in a fresh profile, in real time, and wait until the page says it has
    finished (the caller's `done`, set when the page reports back to its loopback server).
    The page takes as long as it needs on a busy machine; `hang` only ends a browser
    that stopped, with Chromium's own words."""
    browser = require_chromium()
    with subprocess.Popen(
        [browser, *FLAGS, f"--user-data-dir={profile / 'chrome'}", url],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            while not done.wait(0.2):
                if process.poll() is not None:
                    assert process.stderr is not None
                    raise AssertionError(f"chromium exited first: {process.stderr.read()[-3000:]}")
                hang -= 0.2
                if hang <= 0:
                    raise AssertionError(f"the page never reported back from {url}")
        finally:
            process.kill()
            process.communicate()
