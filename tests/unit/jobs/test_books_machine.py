"""The books machine (tests/support/books_machine.py) with a fixed seed: random sequences of
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
from tests.conftest import both_faces
from tests.support.books_generations import Generations
from tests.support.books_machine import QUICK_LATITUDE, make_machine

pytestmark = pytest.mark.slow


def sandbox_for(make_sandbox: Callable[..., SandboxThread], face: str) -> SandboxThread:
    chosen = QUICK_LATITUDE if face == "latitude" else face
    return make_sandbox(task_seconds=0.4, face=chosen)


@both_faces
def test_books_equal_the_account_after_any_sequence(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path, face: str
) -> None:
    sandbox = sandbox_for(make_sandbox, face)
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


def test_pay_once_steps_in_a_fixed_order(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    """The pay-once steps in order: a generation, then a rename, other frames, a re-cut
    into the same folder, a Godot edit: none paid; a new take and an eviction pay again.
    The invariants after each; the paid generations counted by why."""
    sandbox = make_sandbox(task_seconds=0.4)
    machine = make_machine(sandbox, tmp_path)()
    Generations.totals.clear()

    def checked() -> None:
        machine.books_equal_the_account()
        machine.every_job_ends_saying_why()
        machine.nothing_done_is_paid_again()
        machine.paid_once_per_generation()

    try:
        machine.animate_from_the_command_line(0, "idle", again=False)
        checked()
        paid = machine.store.charged()
        assert paid > 0
        machine.animate_from_the_command_line(0, "idle", again=False, renamed=True)
        machine.animate_from_the_command_line(0, "idle", again=False, frames=6)
        [first] = machine._recuttable()
        machine.recut_into_the_same_folder(FixedDraw(first), 5)
        machine.animate_from_the_command_line(0, "idle", again=False)
        checked()
        assert machine.store.charged() == paid  # four requests of one generation: paid once
        machine.edit_in_godot_then_ask_again(1, "walk")  # one generation, asked twice
        checked()
        asked = [
            j for j in machine.store.jobs() if machine.key_of.get(j.id) == ("godot", 1, "walk")
        ]
        assert len(asked) == 2 and [machine.store.charged(j.id) > 0 for j in asked] == [True, False]
        machine.animate_from_the_command_line(0, "idle", again=True)
        machine.evict_clips()
        machine.animate_from_the_command_line(0, "idle", again=False, frames=6)
        checked()
        assert dict(Generations.totals) == {
            "distinct_remote_part": 2,
            "new_take": 1,
            "no_kept_clip": 1,
        }
    finally:
        machine.teardown()


class FixedDraw:
    """A hypothesis data object that draws the one value given."""

    def __init__(self, value: object) -> None:
        self.value = value

    def draw(self, strategy: object) -> object:
        return self.value
