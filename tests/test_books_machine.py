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


def test_a_paid_job_whose_outputs_did_not_go_in_is_installed_free(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    """The machine's own steps in a fixed order (the random runs reach them rarely):
    paid for, its folder a file; the books hold; installed free; the books hold."""
    sandbox = make_sandbox(task_seconds=0.4)
    machine = make_machine(sandbox, tmp_path)()
    try:
        machine.animate_into_a_folder_that_is_a_file()
        [job] = machine.store.jobs()
        assert job.state == "failed" and machine.store.charged(job.id) > 0
        machine.books_equal_the_account()
        machine.every_job_ends_saying_why()
        machine.install_free(job.id)  # asserts it ends done, charged the same
        machine.books_equal_the_account()
        machine.every_job_ends_saying_why()
    finally:
        machine.teardown()
