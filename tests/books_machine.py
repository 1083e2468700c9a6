"""A rule-based state machine that drives the real job engine against the real sandbox
on loopback through random sequences (animate, reject at the service, cancel at each
state a job can be cancelled in) and, after every step, compares the local books with
the sandbox's own account. Used by tests/test_books_machine.py (a fixed seed) and
bench/books_machine.py (a long run)."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from companion.api.client import Client
from companion.jobs.engine import Engine
from companion.jobs.lifecycle import FINAL
from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from companion.store import Store

CANCEL_AT = ("new", "quoted", "running")
START = 1000


class BooksMachine(RuleBasedStateMachine):
    """One sandbox and one store per sequence; `sandbox` and `folder` are set by the
    caller before the run (see make_machine)."""

    sandbox: SandboxThread
    folder: Path
    runs = itertools.count()
    steps_total = 0  # rules run, over every sequence
    checked = 0  # invariant checks passed, over every sequence (the bench reports it)

    def __init__(self) -> None:
        super().__init__()
        self.run = next(self.runs)
        self.home = self.folder / f"run{self.run}"
        self.store = Store(self.home / "companion.db")
        self.steps = 0
        self.key = f"sk-run{self.run}"  # each sequence its own account
        self.sandbox.call(lambda: self._add_key())

    def _add_key(self) -> None:
        service = self.sandbox.service
        service.config.api_keys.append(f"run{self.run}:{self.key}")
        service._register_keys()

    def teardown(self) -> None:
        self.store.close()

    async def _engine(self, action: Any) -> Any:
        async with Client(self.sandbox.base_url, self.key) as client:
            engine = Engine(self.store, client, self.sandbox.base_url)
            return await action(engine, client)

    def _request(self, reject: bool) -> dict[str, Any]:
        image = self.home / f"pic{self.steps}.png"
        draw_character(40 + self.steps % 20).save(image)
        prompt = f"step {self.steps}" + (" sandbox:reject" if reject else "")
        return {
            "image": str(image),
            "prompt": prompt,
            "video": {"duration_seconds": 1, "resolution": "360p"},
            "export": {
                "frame_count": 4,
                "output_width": 64,
                "output_height": 64,
                "output_formats": ["spritesheet", "spritesheet_json"],
            },
        }

    @rule(reject=st.booleans())
    def animate(self, reject: bool) -> None:
        self.steps += 1
        BooksMachine.steps_total += 1
        request = self._request(reject)

        async def go(engine: Engine, client: Client) -> None:
            job = engine.submit(request, name=f"s{self.steps}", target_dir=self.home / "out")
            await engine.run(job.id)

        asyncio.run(self._engine(go))

    @rule(at=st.sampled_from(CANCEL_AT))
    def start_and_cancel(self, at: str) -> None:
        self.steps += 1
        BooksMachine.steps_total += 1
        request = self._request(False)

        async def go(engine: Engine, client: Client) -> None:
            job = engine.submit(request, name=f"s{self.steps}", target_dir=self.home / "out")
            if at == "new":
                await engine.cancel(job.id)
                return
            runner = asyncio.create_task(engine.run(job.id))
            while self.store.job(job.id).state not in (at, *FINAL):
                await asyncio.sleep(0.01)
            await engine.cancel(job.id)
            await runner

        asyncio.run(self._engine(go))

    def _available(self) -> int:
        async def go(engine: Engine, client: Client) -> int:
            return (await client.get_credit_balance()).available

        return int(asyncio.run(self._engine(go)))

    @invariant()
    def books_equal_the_account(self) -> None:
        spent = START - self._available()
        moves = self.store.credit_moves()
        assert moves["held"] == 0, f"a hold is neither charged nor released: {moves}"
        assert moves["spent"] == spent, f"books {moves} against {spent} at the service"
        assert self.store.charged() == spent, "what budgets count is not what was spent"
        BooksMachine.checked += 1

    @invariant()
    def every_job_ends_saying_why(self) -> None:
        for job in self.store.jobs():
            assert job.state in FINAL, f"{job.name} left {job.state}"
            if job.state != "done":
                assert job.error, f"{job.name} ended {job.state} with no reason"
            entries = {e["entry"] for e in self.store.ledger(job.id)}
            if "hold" in entries:
                assert entries & {"charge", "release", "refund"}, f"{job.name}: {entries}"


def make_machine(sandbox: SandboxThread, folder: Path) -> type[BooksMachine]:
    return type("Books", (BooksMachine,), {"sandbox": sandbox, "folder": folder})
