"""The balance the daemon's status gives is the account's after every job: it was kept
for 10 s, so the dock said "balance 1000" after a 9-credit job."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.daemon import DaemonThread, body, call, godot_project, wait_final


def test_the_status_balance_follows_a_job_at_once(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(task_seconds=0.2)
    api = Api(sandbox.base_url, key=TEST_KEY)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        before = call(daemon, "GET", "/api/v1/status").json["balance"]
        assert before == api.get("/credits/balance").json["available"]
        job = call(daemon, "POST", "/api/v1/animate", body(project))
        assert job.status == 202, job.body
        done = wait_final(daemon, job.json["id"])
        assert done["state"] == "done", done
        after = api.get("/credits/balance").json["available"]
        assert after < before
        assert call(daemon, "GET", "/api/v1/status").json["balance"] == after
    finally:
        daemon.stop()
