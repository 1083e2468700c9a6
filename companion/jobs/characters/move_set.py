"""A character's set priced as one: each move's price and what pressing go spends on it
(nothing when the same move was made already, or its generation is paid for and its clip
kept), the total held to the budgets once, and then every move submitted at once with
that one approval, so no move of an approved set waits for another."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from companion.jobs.characters.moves import MoveJob
from companion.jobs.characters.wiring import rewire
from companion.jobs.engine import Engine
from companion.jobs.remote.reuse import Answer, generation_answer, settle
from companion.jobs.resume import made_before, paid_not_installed
from companion.store import Job


@dataclass(frozen=True)
class MovePrice:
    """One move of the set, priced: its request marked with what makes it the same
    move again, its price made anew, and what answers it instead of paying."""

    job: MoveJob
    credits: int
    earlier: Job | None  # exactly this move: done, under way, or paid with its files out
    answer: Answer  # else the paid generation of its remote part, when one answers

    @property
    def spends(self) -> int:
        """What going on spends on this move: its price, or 0 when something answers it."""
        return 0 if self.earlier is not None or self.answer.free else self.credits


@dataclass(frozen=True)
class SetQuote:
    moves: list[MovePrice]

    @property
    def credits(self) -> int:
        """The whole set made anew."""
        return sum(m.credits for m in self.moves)

    @property
    def spends(self) -> int:
        """What going on spends now: the moves nothing answers."""
        return sum(m.spends for m in self.moves)

    def over(self, engine: Engine) -> bool:
        return set_over_budget(engine, [m.spends for m in self.moves])


def set_over_budget(engine: Engine, spends: Sequence[int]) -> bool:
    """A set (a character's moves, a batch's pictures) spending these is over a budget:
    one of them over the per-job one, or the total over what is left of the day's or the
    month's. One approval answers for the whole set."""
    return engine.over_budget(sum(spends), largest=max(spends, default=0))


async def quote_set(
    engine: Engine,
    jobs: Sequence[MoveJob],
    target: Path,
    image_sha256: str,
    *,
    again: bool = False,
) -> SetQuote:
    """Every move priced at the service (a quote spends nothing) and looked up here.
    again: every move a new take, paid (nothing earlier answers)."""
    priced = []
    for job in jobs:
        marked, earlier = await asyncio.to_thread(
            made_before, engine.store, job.request, job.name, target, image_sha256
        )
        answer = Answer("none")
        if again:
            earlier = None
        elif earlier is None:
            answer = await asyncio.to_thread(
                generation_answer, engine.store, engine.clips, marked.generation
            )
        credits = await engine.quote(marked, job.name)
        priced.append(MovePrice(MoveJob(job.move, job.name, marked), credits, earlier, answer))
    return SetQuote(priced)


def submit_set(
    engine: Engine,
    quote: SetQuote,
    target: Path,
    *,
    approved: bool,
    again: bool = False,
    priority: int = 1,
) -> list[tuple[Job, bool]]:
    """Every move's job, in the set's order, with whether it is new to run: an earlier
    job of exactly the move is answered (one paid for whose files did not go in is
    installed again, free), the others submitted (a re-cut when their generation is
    kept). approved: the set's one approval of a total over a budget, given to every
    move, so none waits on its own."""
    store = engine.store
    out: list[tuple[Job, bool]] = []
    for priced in quote.moves:
        earlier = priced.earlier
        if earlier is not None:
            if paid_not_installed(store, earlier):
                out.append((engine.retry(earlier.id), True))
            else:
                rewire(store, earlier)  # its animation back in a character file deleted since
                out.append((earlier, False))
            continue
        asked, _ = settle(store, engine.clips, priced.job.request, again=again)
        job = engine.submit(asked, name=priced.job.name, target_dir=target, priority=priority)
        out.append((store.update_job(job.id, approved=1) if approved else job, True))
    return out
