"""The books machine (tests/support/books_machine.py) for long: many random sequences against a
real sandbox (the engine's animate, reject and cancel at each cancellable state,
`companion animate`, the daemon's API and inbox, SIGKILL of the daemon mid-job, fault
profiles, expiring download URLs, budgets a day and a month), the local books compared
with the sandbox's account after every step. Prints how many sequences and steps it
tried, and the rules run.

    .venv/bin/python bench/books_machine_bench.py --examples 200 --steps 12
    .venv/bin/python bench/books_machine_bench.py --face latitude --examples 60

On the latitude face (docs/sandbox.md, "Two faces") the in-progress window and the
late credit posting are shortened (tests/support/books_machine.py's QUICK_LATITUDE): what
matters here is that they happen at every step, not how long they last.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from companion.sandbox import SandboxConfig, SandboxThread
from companion.sandbox.face import FACES
from tests.conftest import ROOMY
from tests.support.books_generations import Generations
from tests.support.books_machine import QUICK_LATITUDE, BooksMachine, make_machine


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=200, help="sequences to try")
    parser.add_argument("--steps", type=int, default=12, help="steps per sequence at most")
    parser.add_argument("--face", choices=sorted(FACES), default="default", help="sandbox face")
    args = parser.parse_args()
    face = QUICK_LATITUDE if args.face == "latitude" else FACES[args.face]
    config = SandboxConfig(
        api_keys=["sk-bench"], task_seconds=0.4, limits=ROOMY, min_retry_after=0, face=face
    )
    sandbox = SandboxThread(config).start()
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="books-machine-") as folder:
            run_state_machine_as_test(
                make_machine(sandbox, Path(folder)),
                settings=settings(
                    max_examples=args.examples,
                    stateful_step_count=args.steps,
                    deadline=None,
                    database=None,
                    suppress_health_check=list(HealthCheck),
                ),
            )
    finally:
        sandbox.stop()
    sequences = next(BooksMachine.runs)
    print(
        f"face: {args.face}; sequences: {sequences}, steps: {BooksMachine.steps_total}, invariant checks "
        f"passed: {BooksMachine.checked}, in {time.monotonic() - started:.0f} s; nothing found"
    )
    print("rules run:", dict(sorted(BooksMachine.rules_run.items())))
    paid = Generations.totals
    print(
        f"paid generations: {sum(paid.values())} = distinct remote parts "
        f"{paid['distinct_remote_part']} + new takes {paid['new_take']} + asked again with "
        f"no kept clip (evicted) {paid['no_kept_clip']}; paid beyond that: 0"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
