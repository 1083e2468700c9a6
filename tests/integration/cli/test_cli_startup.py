"""Commands load only what they use (bench/cli_startup_bench.py measures the time): one
that reads the books loads no client, schema, config reader or media code, and one that
asks the embedded sandbox a question loads neither the job engine nor the media code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = (
    "import sys\n"
    "from companion.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "heavy = {heavy}\n"
    "print(sorted(m for m in sys.modules if m in heavy or m.split('.')[0] in heavy\n"
    "      or any(m.startswith(h + '.') for h in heavy)), code)\n"
)
MEDIA = ["numpy", "PIL", "av", "companion.media.frames", "companion.jobs.engine"]
MEDIA += ["companion.install.plan"]


def loaded(home: Path, heavy: list[str], *command: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=heavy), *command],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "COMPANION_HOME": str(home)},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("command", [("jobs", "list"), ("projects", "list"), ("clips",)])
def test_reading_the_books_loads_no_client_schema_or_media(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    heavy = ["pydantic", "aiohttp", "yaml", "asyncio", "urllib.request", *MEDIA]
    assert loaded(tmp_path, heavy, *command) == "[] 0"


def test_a_question_to_the_embedded_sandbox_loads_no_engine_or_media(tmp_path: Path) -> None:
    assert loaded(tmp_path, MEDIA, "credits") == "[] 0"
