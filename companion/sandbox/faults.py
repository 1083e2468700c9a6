"""Seeded fault profiles: the failures a client must survive, on demand.

| profile | what happens |
|---|---|
| none | nothing |
| unavailable | 15% of API requests answer 503, retryable, Retry-After 1 (creates: |
| | PROVIDER_UNAVAILABLE, others: API_UNAVAILABLE) |
| storm | 429 RATE_LIMITED storms: every 7th second the API refuses everything with Retry-After 1 |
| resets | 10% of API requests have their connection dropped before they are handled |
| slow | every API response is delayed 0.2 to 1.2 s |
| truncated | 30% of downloads stop after half their bytes (Range requests are honoured) |
| dropped-create | 40% of accepted creates lose their response after the task was recorded |
| internal | 10% of API requests answer 500 INTERNAL_ERROR, retryable |
| chaos | all of the above at a third of their rates |

`--faults PROFILE[:SEED]`; the same seed gives the same decisions in the same order.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

PROFILES = (
    "none",
    "unavailable",
    "storm",
    "resets",
    "slow",
    "truncated",
    "dropped-create",
    "internal",
    "chaos",
)


@dataclass(frozen=True)
class FaultRates:
    unavailable: float = 0.0
    storm: bool = False
    reset: float = 0.0
    slow: bool = False
    truncate: float = 0.0
    drop_create: float = 0.0
    internal: float = 0.0


RATES: dict[str, FaultRates] = {
    "none": FaultRates(),
    "unavailable": FaultRates(unavailable=0.15),
    "storm": FaultRates(storm=True),
    "resets": FaultRates(reset=0.10),
    "slow": FaultRates(slow=True),
    "truncated": FaultRates(truncate=0.30),
    "dropped-create": FaultRates(drop_create=0.40),
    "internal": FaultRates(internal=0.10),
    "chaos": FaultRates(
        unavailable=0.05,
        storm=True,
        reset=0.033,
        slow=False,
        truncate=0.10,
        drop_create=0.13,
        internal=0.033,
    ),
}


class Faults:
    def __init__(self, spec: str = "none") -> None:
        name, _, seed = spec.partition(":")
        if name not in RATES:
            raise ValueError(f"unknown fault profile {name!r}; choose from {', '.join(PROFILES)}")
        try:
            self._random = random.Random(int(seed) if seed else 0)  # noqa: S311 - not secrets
        except ValueError as exc:
            raise ValueError(f"fault seed {seed!r} is not an integer") from exc
        self.name = name
        self.rates = RATES[name]
        self._storm_origin = time.monotonic()

    @property
    def active(self) -> bool:
        return self.name != "none"

    def _roll(self, rate: float) -> bool:
        return rate > 0 and self._random.random() < rate

    def unavailable(self) -> bool:
        return self._roll(self.rates.unavailable)

    def internal(self) -> bool:
        return self._roll(self.rates.internal)

    def reset(self) -> bool:
        return self._roll(self.rates.reset)

    def delay(self) -> float:
        return 0.2 + self._random.random() if self.rates.slow else 0.0

    def storming(self) -> bool:
        # One second in seven, counted from start-up.
        return self.rates.storm and int(time.monotonic() - self._storm_origin) % 7 == 6

    def truncate(self) -> bool:
        return self._roll(self.rates.truncate)

    def drop_create(self) -> bool:
        return self._roll(self.rates.drop_create)
