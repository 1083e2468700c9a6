"""Account limits per access tier. Registered values are the spec's (part 8); the paid
tiers' values are "not shown" there, so these are the sandbox's documented choice."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    concurrency: int
    queue: int
    create_per_minute: int
    other_per_minute: int


TIERS: dict[str, Limits] = {
    "registered": Limits(concurrency=1, queue=3, create_per_minute=3, other_per_minute=60),
    "basic": Limits(concurrency=2, queue=10, create_per_minute=10, other_per_minute=300),
    "expert": Limits(concurrency=4, queue=25, create_per_minute=30, other_per_minute=600),
    "ultra": Limits(concurrency=8, queue=50, create_per_minute=60, other_per_minute=1200),
}
