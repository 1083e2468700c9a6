"""The suite's own clock, printed at its end: the whole run's wall time and, for the quick
group (tests not marked slow) and the slow one, how many tests and how long they took.
A group's share of the wall time is its test time spread over the workers, which is what
that group alone takes on the same machine (within the imbalance of the last files).
CI prints it with every run, so the 10-minute and 3-minute bounds are seen, not guessed."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import pytest


@dataclass
class Group:
    tests: set[str] = field(default_factory=set)
    seconds: float = 0.0


@dataclass
class Clock:
    started: float = field(default_factory=time.monotonic)
    workers: set[str] = field(default_factory=set)
    groups: dict[str, Group] = field(default_factory=lambda: {"quick": Group(), "slow": Group()})

    def add(self, report: pytest.TestReport) -> None:
        group = self.groups["slow" if "slow" in report.keywords else "quick"]
        group.tests.add(report.nodeid)
        group.seconds += report.duration
        worker = getattr(report, "node", None)  # set where xdist workers ran the test
        if worker is not None:
            self.workers.add(str(getattr(getattr(worker, "gateway", None), "id", worker)))

    def lines(self) -> list[str]:
        wall = time.monotonic() - self.started
        workers = max(1, len(self.workers))
        said = [f"whole suite: {wall:.0f} s wall on {workers} worker(s)"]
        for name, group in self.groups.items():
            said.append(
                f"{name} group: {len(group.tests)} tests, {group.seconds:.0f} s of test time, "
                f"about {group.seconds / workers:.0f} s on {workers} worker(s)"
            )
        return said


_CLOCK = Clock()


def pytest_sessionstart(session: pytest.Session) -> None:
    _CLOCK.started = time.monotonic()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _CLOCK.add(report)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if hasattr(terminalreporter.config, "workerinput"):
        return  # the workers' reports reach the process that prints
    terminalreporter.section("suite times")
    for line in _CLOCK.lines():
        terminalreporter.write_line(line)
