"""The books machine (tests/books_machine.py) with a fixed seed: random sequences of
animate, reject and cancel on the engine, `companion animate`, the daemon's API and
inbox, SIGKILL of the daemon mid-job, fault profiles, expiring download URLs and
budgets against the real sandbox, the books checked after every step."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from companion.sandbox import SandboxThread
from tests.books_machine import make_machine

pytestmark = pytest.mark.slow


def test_books_equal_the_account_after_any_sequence(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.4)
    machine = make_machine(sandbox, tmp_path)
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=6,
            stateful_step_count=6,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
