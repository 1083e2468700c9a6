"""The books machine's record of generations asked for (see tests/support/books_machine.py): for
each job a door made (the command line, the daemon's API, a watched inbox), its remote
part's fingerprint, whether a paid generation of it answered when it was asked (its clip
kept, or one under way), and whether the ask was an explicit new take. Its invariant:
every paid generation is a remote part no kept clip answered when asked, or a new take;
so paid generations == distinct remote parts asked for + new takes + the ones asked again
after their clip was evicted. Written apart from companion.jobs.remote.reuse, so the machine
does not check the code with itself."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from companion.store import Job, Store

UNDER_WAY = ("new", "quoted", "creating", "running", "downloading", "installing")


@dataclass(frozen=True)
class Asked:
    generation: str
    answered: bool  # a paid generation of it (clip kept) or one under way, when asked
    again: bool  # an explicit new take


class Generations:
    totals: ClassVar[Counter[str]] = Counter()  # over every sequence (the bench reports it)

    def __init__(self, store: Store, clips: Path) -> None:
        self.store = store
        self.clips = clips
        self.asked: dict[str, Asked] = {}  # job id -> what it was asked as
        self.counted: set[str] = set()

    def _answering(self, job: Job) -> bool:
        if job.state in UNDER_WAY:
            return True
        paid = job.remote_status == "succeeded" and bool(job.remote_id)
        return paid and (self.clips / f"{job.id}.mp4").is_file()

    def answerable(self) -> set[str]:
        """The remote parts a door answers free right now."""
        return {
            str(j.request["generation"])
            for j in self.store.jobs()
            if j.kind == "animation" and j.request.get("generation") and self._answering(j)
        }

    def before(self) -> tuple[set[str], set[str]]:
        return {j.id for j in self.store.jobs()}, self.answerable()

    def after(self, before: tuple[set[str], set[str]], again: bool) -> None:
        """Record the jobs the ask made, by what answered it when it was asked."""
        ids, answerable = before
        for job in self.store.jobs():
            generation = job.request.get("generation")
            if job.id in ids or job.kind != "animation" or not generation:
                continue
            self.asked[job.id] = Asked(str(generation), generation in answerable, again)

    def check(self) -> None:
        """No generation paid that a kept clip answered when it was asked (unless asked
        for a new take); each paid one counted once, by why it was paid."""
        paid_before: set[str] = set()
        for job in self.store.jobs():  # oldest first
            asked = self.asked.get(job.id)
            if asked is None or self.store.charged(job.id) <= 0:
                continue
            assert asked.again or not asked.answered, (
                f"job {job.id} paid for generation {asked.generation[:8]}, which a kept "
                "clip (or a generation under way) answered when it was asked"
            )
            if job.id not in self.counted:
                self.counted.add(job.id)
                why = (
                    "new_take"
                    if asked.again
                    else "no_kept_clip"
                    if asked.generation in paid_before
                    else "distinct_remote_part"
                )
                Generations.totals[why] += 1
            paid_before.add(asked.generation)
