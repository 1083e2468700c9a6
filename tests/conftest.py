from __future__ import annotations

import compileall
import os
from pathlib import Path

import pytest

from tests.support.media import write_index_video
from tests.support.suite_times import (  # the suite's clock, printed at its end
    pytest_runtest_logreport as pytest_runtest_logreport,
)
from tests.support.suite_times import pytest_sessionstart as pytest_sessionstart
from tests.support.suite_times import pytest_terminal_summary as pytest_terminal_summary

REPO = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    """Byte-compile the package and the test helpers once, before any test: the suite
    starts `python -m companion` hundreds of times, and where PYTHONDONTWRITEBYTECODE is
    set (it is on some machines) each start would compile every module again, which Python
    otherwise does once. Python reads these files whatever that variable says, and checks
    each against its source, so an edited module is never run stale."""
    if not hasattr(config, "workerinput"):  # once, in the process that starts the workers
        for folder in ("companion", "tests"):
            compileall.compile_dir(REPO / folder, quiet=2, workers=0)
        _compile_the_libraries_commands_load()


def _compile_the_libraries_commands_load() -> None:
    """The same for the installed libraries a command loads (aiohttp, pydantic, Pillow,
    NumPy, PyAV...), whose wheels were installed without byte-compiling (.ci/run): the
    modules the companion's doors import, each compiled once if it is not already."""
    import importlib
    import sys

    for door in ("companion.cli.main", "companion.daemon.server", "companion.runtime"):
        importlib.import_module(door)
    for module in list(sys.modules.values()):
        source = getattr(module, "__file__", None) or ""
        if source.endswith(".py") and not Path(source).is_relative_to(REPO):
            compileall.compile_file(source, quiet=2)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` runs a worker more than the cores: much of the suite waits on real
    processes (editors, daemons, the sandbox's tasks), and on 2 cores a third worker
    fills that time (903 s against 958 s of the whole suite, measured on this project's
    machine; two kept the cores 80 % busy, three 92 %)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 1


@pytest.fixture(autouse=True)
def _own_companion_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Commands that record what they write (export does) never touch the real home,
    nor the test's own tmp_path; a test that names its own COMPANION_HOME still wins."""
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path_factory.mktemp("companion-home")))


@pytest.fixture(autouse=True)
def _no_ambient_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service is reached through the user's proxy (tests/integration/sandbox/test_proxy.py
    sets one of its own); a proxy in the machine's environment would stand between every test and
    the sandbox on loopback."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture(scope="session")
def index_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 s, 24 fps, 48 frames, 320x240, green background, frame index in a square."""
    return write_index_video(tmp_path_factory.mktemp("media") / "index.mp4")


from collections.abc import Callable, Iterator  # noqa: E402
from typing import Any  # noqa: E402

from companion.sandbox import Limits, SandboxConfig, SandboxThread  # noqa: E402

# Limits wide enough that only the tests about limits ever meet them.
ROOMY = Limits(concurrency=4, queue=50, create_per_minute=1000, other_per_minute=100000)
TEST_KEY = "sk-test"


FACES = ("default", "latitude")
# A money test runs against both faces of the sandbox (companion.sandbox.face): mark it
# (or its module, as pytestmark) with both_faces and take the `face` fixture, or just
# make_sandbox, which starts its sandboxes with that face.
both_faces = pytest.mark.parametrize("face", FACES, indirect=True)


@pytest.fixture
def face(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The face of the sandboxes this test starts: "default" unless parametrized (see
    both_faces); the embedded sandbox of a command the test runs gets it too."""
    chosen = str(getattr(request, "param", "default"))
    monkeypatch.setenv("COMPANION_SANDBOX_FACE", chosen)
    return chosen


@pytest.fixture
def make_sandbox(face: str) -> Iterator[Callable[..., SandboxThread]]:
    """Start sandboxes on background threads; every one is stopped after the test."""
    started: list[SandboxThread] = []

    def start(**overrides: Any) -> SandboxThread:
        settings: dict[str, Any] = {
            "api_keys": [TEST_KEY],
            "task_seconds": 0.3,
            "limits": ROOMY,
            "min_retry_after": 0,
            "face": face,
        }
        settings.update(overrides)
        sandbox = SandboxThread(SandboxConfig(**settings)).start()
        started.append(sandbox)
        return sandbox

    yield start
    for sandbox in started:
        sandbox.stop()


from tests.support.daemon import DaemonThread  # noqa: E402


@pytest.fixture
def daemon(make_sandbox: Callable[..., SandboxThread], tmp_path: Path) -> Iterator[DaemonThread]:
    """A daemon against a fresh sandbox, its home in the test's own folder."""
    sandbox = make_sandbox(task_seconds=0.3)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    yield running
    running.stop()
