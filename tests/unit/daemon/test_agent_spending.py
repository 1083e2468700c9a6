"""What an agent may spend unasked: each limit alone and together, no limits (every paid
call asks), no spending at all, free calls; and the ledger of what agents spent, which a
day's limit reads across sessions and processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.daemon.mcp.spending import Limits, Spent, decide


def limits(
    per_call: int | None = None,
    per_session: int | None = None,
    per_day: int | None = None,
    no_spend: bool = False,
) -> Limits:
    return Limits(per_call, per_session, per_day, no_spend)


@pytest.mark.parametrize(
    ("limit", "spends", "session", "day", "verdict", "said"),
    [
        (limits(per_call=10), 0, 0, 0, "free", "spends nothing"),
        (limits(no_spend=True), 0, 0, 0, "free", "spends nothing"),  # nothing to refuse
        (limits(no_spend=True, per_call=100), 5, 0, 0, "refused", "nothing was spent"),
        (limits(), 1, 0, 0, "ask", "every paid call asks"),
        (limits(per_call=10), 10, 0, 0, "within", "within"),
        (limits(per_call=10), 11, 0, 0, "ask", "per-call limit of 10"),
        (limits(per_session=20), 8, 12, 0, "within", "within"),
        (limits(per_session=20), 9, 12, 0, "ask", "session's limit of 20 (12 spent)"),
        (limits(per_day=30), 10, 0, 21, "ask", "day's limit of 30 (21 spent)"),
        (limits(per_call=10, per_day=30), 11, 0, 25, "ask", "per-call limit of 10 and the day"),
    ],
)
def test_a_call_spends_asks_or_is_refused_by_the_limits(
    limit: Limits, spends: int, session: int, day: int, verdict: str, said: str
) -> None:
    decision = decide(limit, spends, session, day)
    assert decision.verdict == verdict
    assert said in decision.why
    assert (decision.spends, decision.session_spent, decision.day_spent) == (spends, session, day)


def test_the_day_is_counted_across_sessions_and_processes(tmp_path: Path) -> None:
    one, other = Spent(tmp_path), Spent(tmp_path)  # two servers of the same home
    one.add("session-a", "job-1", 12)
    other.add("session-b", "job-2", 5)
    one.add("session-a", "job-1", 12)  # the same job answered again: counted once a day
    other.add("session-b", "job-3", 0)  # free: not written
    assert one.today() == other.today() == 17
    assert (one.session("session-a"), other.session("session-b"), one.session("nobody")) == (
        24,
        5,
        0,
    )  # a session's own count is what it was answered
    lines = (tmp_path / "agent-spend.jsonl").read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(line)["credits"] > 0 for line in lines)


def test_a_line_cut_short_or_of_an_earlier_day_is_not_counted(tmp_path: Path) -> None:
    ledger = tmp_path / "agent-spend.jsonl"
    ledger.write_text(
        json.dumps({"at": "2020-01-01T10:00:00Z", "job": "old", "credits": 40}) + "\n"
        '{"at": "2999-01-01T00:00:00Z", "job": "torn", "cre'
    )
    spent = Spent(tmp_path)
    assert spent.today() == 0
    spent.add("s", "new", 3)
    assert spent.today() == 3
