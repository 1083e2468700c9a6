"""The command line as its users run it: `python -m companion` in its own process,
against a service on loopback, with a COMPANION_HOME of the test's own."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
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
    """Run `companion ARGS`; crash names a COMPANION_CRASH_AT point to die at, in a
    process of its own (it kills itself); any other run is in this process."""
    env = environment(base_url, home)
    if not crash:
        return in_process(args, env)
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


def in_process(
    args: Sequence[str], env: Mapping[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`companion ARGS` run by its own main() in this process, with env as its whole
    environment and cwd as its folder, both given back after: what a new Python would
    answer (exit code, stdout, stderr), without the second of a new interpreter. For
    commands whose process itself is not under test (no kill, signal or closed pipe)."""
    from companion.cli.main import main

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    os.environ.clear()
    os.environ.update(env)
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's refusals
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["companion", *args], code, out.getvalue(), err.getvalue())
