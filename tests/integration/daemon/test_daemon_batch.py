"""A batch: several pictures animated with the same settings as one action. One quote
(each picture's price and the total, what is made already at 0), one cap (the budget is
checked against the whole batch before anything is spent), and money that agrees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.media.demo_art import draw_character
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import tasks
from tests.support.daemon import DaemonThread, body, call, godot_project, wait_final


def batch(project: Path, *pictures: str, **extra: Any) -> dict[str, Any]:
    sent = body(project, "walk cycle", image_paths=list(pictures), **extra)
    del sent["image_path"]
    return sent


@pytest.mark.slow
def test_a_batch_is_quoted_whole_paid_once_and_capped_whole(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(task_seconds=0.2)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    home.mkdir()
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        draw_character(48).save(project / "art" / "slime.png")
        draw_character(56).save(project / "art" / "coin.png")
        sent = batch(project, "art/hero.png", "art/slime.png")

        # Without the batch's quote nothing is made.
        stale = call(daemon, "POST", "/api/v1/batch", sent)
        assert stale.status == 409 and stale.error["code"] == "STALE_QUOTE", stale.body
        quote = call(daemon, "POST", "/api/v1/batch/quote", sent).json
        assert [q["name"] for q in quote["data"]] == ["hero", "slime"], quote
        prices = [q["credits"] for q in quote["data"]]
        assert all(p > 0 for p in prices) and quote["credits_total"] == sum(prices), quote
        assert quote["spends_total"] == quote["credits_total"], quote
        assert not quote["budget"]["over"] and quote["balance"] is not None, quote

        balance = api.get("/credits/balance").json["available"]
        started = call(daemon, "POST", "/api/v1/batch", {**sent, "quote_id": quote["quote_id"]})
        assert started.status == 202, started.body
        jobs = started.json["data"]
        assert [j["name"] for j in jobs] == ["hero", "slime"] and not started.json["approved"]
        for job in jobs:
            assert wait_final(daemon, job["id"])["state"] == "done"
        assert balance - api.get("/credits/balance").json["available"] == quote["spends_total"]
        assert (project / "animations" / "hero.tres").is_file()
        assert (project / "animations" / "slime.tres").is_file()
        remote = len(tasks(api))

        # The same batch with one more picture: the two made already are 0, only the new
        # one is priced and paid.
        more = batch(project, "art/hero.png", "art/slime.png", "art/coin.png")
        again = call(daemon, "POST", "/api/v1/batch/quote", more).json
        assert [q["spends"] for q in again["data"]][:2] == [0, 0], again
        assert [q["earlier"]["why"] for q in again["data"][:2]] == ["made", "made"], again
        assert again["spends_total"] == again["data"][2]["credits"] > 0, again
        balance = api.get("/credits/balance").json["available"]
        started = call(daemon, "POST", "/api/v1/batch", {**more, "quote_id": again["quote_id"]})
        assert started.status == 202, started.body
        ids = [j["id"] for j in started.json["data"]]
        assert ids[:2] == [j["id"] for j in jobs], started.json  # the jobs that made them
        assert wait_final(daemon, ids[2])["state"] == "done"
        assert balance - api.get("/credits/balance").json["available"] == again["spends_total"]
        assert len(tasks(api)) == remote + 1

        # Two pictures named alike are refused before anything is priced.
        (project / "other").mkdir()
        draw_character(40).save(project / "other" / "hero.png")
        same = call(daemon, "POST", "/api/v1/batch/quote", batch(project, "art/hero.png",
                                                                 "other/hero.png"))  # fmt: skip
        assert same.status == 400 and "both be named hero" in same.error["message"], same.body
    finally:
        daemon.stop()


@pytest.mark.slow
def test_a_batch_over_the_day_is_refused_whole_until_approved(make_sandbox, tmp_path: Path) -> None:
    """Each picture alone fits the day's budget, the two together do not: the batch is over
    as a whole, said with its quote, refused (nothing spent) until approved once; then no
    member waits for an approval of its own."""
    sandbox = make_sandbox(task_seconds=0.2)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    home.mkdir()
    probe = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(probe, tmp_path)
        draw_character(48).save(project / "art" / "slime.png")
        sent = batch(project, "art/hero.png", "art/slime.png")
        quoted = call(probe, "POST", "/api/v1/batch/quote", sent).json["data"]
        prices = [q["credits"] for q in quoted]
    finally:
        probe.stop()
    (home / "config.yaml").write_text(f"budgets:\n  per_day: {sum(prices) - 1}\n")
    assert max(prices) <= sum(prices) - 1
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        quote = call(daemon, "POST", "/api/v1/batch/quote", sent).json
        assert quote["budget"]["over"] and quote["budget"]["per_day"] == sum(prices) - 1, quote
        balance = api.get("/credits/balance").json["available"]
        remote = len(tasks(api))
        chosen = {**sent, "quote_id": quote["quote_id"]}
        refused = call(daemon, "POST", "/api/v1/batch", chosen)
        assert refused.status == 409 and refused.error["code"] == "OVER_BUDGET", refused.body
        assert "approve" in refused.error["message"], refused.body
        assert api.get("/credits/balance").json["available"] == balance
        assert len(tasks(api)) == remote and call(daemon, "GET", "/api/v1/jobs").json["data"] == []
        started = call(daemon, "POST", "/api/v1/batch", {**chosen, "approve": True})
        assert started.status == 202 and started.json["approved"], started.body
        for job in started.json["data"]:
            assert wait_final(daemon, job["id"])["state"] == "done"
        assert balance - api.get("/credits/balance").json["available"] == sum(prices)
    finally:
        daemon.stop()
