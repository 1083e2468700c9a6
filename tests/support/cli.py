"""The command line as its users run it: `python -m companion` in its own process,
against a service on loopback, with a COMPANION_HOME of the test's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import TEST_KEY
from tests.support.calls import Api


def environment(base_url: str, home: Path) -> dict[str, str]:
    """This process's environment without its COMPANION_ settings, pointed at base_url."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env.update(COMPANION_HOME=str(home), COMPANION_BASE_URL=base_url, COMPANION_API_KEY=TEST_KEY)
    return env


def companion(
    base_url: str, home: Path, *args: str, crash: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `companion ARGS`; crash names a COMPANION_CRASH_AT point to die at."""
    env = environment(base_url, home)
    if crash:
        env["COMPANION_CRASH_AT"] = crash
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )


def tasks(api: Api) -> list[dict[str, Any]]:
    """Every paid task of the account, as the service lists them: one-clicks, then video
    generations (what a job whose outputs are made here buys)."""
    from tests.support.sandbox import listed

    return [*listed(api, "animations"), *listed(api, "video-generations")]
