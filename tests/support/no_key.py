"""The command line with no key configured (the embedded sandbox), run in this process:
these commands are refused or answered by the companion's own code, not by its process."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.support.cli import in_process

BANNER = (
    "companion: no API key configured; using the embedded sandbox "
    "(set COMPANION_API_KEY and COMPANION_BASE_URL for the service)"
)


def companion(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env.update(COMPANION_HOME=str(home), COLUMNS="80")
    return in_process(args, env, cwd)


def one_error(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in result.stderr.splitlines() if line != BANNER]
    assert len(lines) == 1 and lines[0].startswith("companion: error: "), result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    return lines[0]
