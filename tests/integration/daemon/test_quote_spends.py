"""The quote says what pressing Animate spends, not only the price: exactly a request an
earlier job made (outputs in place), is making, or was paid for without its outputs going
in is answered by that job, free, so the quote says `spends: 0` and names it in `earlier`;
`"again": true` makes a new one at the price. Against a sandbox and the daemon on
loopback: the money shown is the money spent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY, both_faces
from tests.support.daemon import DaemonThread, call, wait_final
from tests.support.paid import creates, registered_body

pytestmark = both_faces  # a money test: on both faces of the sandbox


def test_the_quote_of_what_was_made_spends_nothing(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=1.0, journal=True)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        body = registered_body(running, tmp_path, 6, target_folder="anim")
        first = call(running, "POST", "/api/v1/quote", body).json
        assert first["spends"] == first["credits"] > 0 and first["earlier"] is None
        job_id = call(running, "POST", "/api/v1/animate", body).json["id"]

        running_quote = call(running, "POST", "/api/v1/quote", body).json
        assert running_quote["spends"] == 0, running_quote
        assert running_quote["earlier"]["id"] == job_id
        assert running_quote["earlier"]["why"] == "under_way"
        assert wait_final(running, job_id)["state"] == "done"

        quote = call(running, "POST", "/api/v1/quote", body)
        assert quote.status == 200, quote.body
        assert quote.json["credits"] == first["credits"]  # still the price of a new one
        assert quote.json["spends"] == 0
        assert quote.json["earlier"] == {"id": job_id, "state": "done", "why": "made"}
        assert quote.json["replaces"] == []  # animate replaces nothing: it answers the job
        assert quote.json["budget"]["over"] is False
        pressed = call(
            running, "POST", "/api/v1/animate", {**body, "quote_id": quote.json["quote_id"]}
        )
        assert pressed.status == 200 and pressed.json["id"] == job_id
        assert len(creates(sandbox)) == 1  # the quote said 0, and 0 was spent

        anew = call(running, "POST", "/api/v1/quote", {**body, "again": True}).json
        assert anew["spends"] == anew["credits"] == first["credits"]
        assert anew["earlier"] is None and anew["replaces"]  # it replaces the job's files
        # A generation made again (a new seed) is a new job: it never spends nothing.
        repeat = call(running, "POST", f"/api/v1/generations/{job_id}/again", {"quote_only": True})
        assert repeat.status == 200, repeat.body
        assert repeat.json["spends"] == repeat.json["credits"] > 0
        assert repeat.json["earlier"] is None

        document = call(running, "GET", "/api/v1/openapi.json").json
        described = document["components"]["schemas"]["QuoteOut"]["properties"]
        assert "spends now" in described["spends"]["description"]
        assert "earlier job" in described["earlier"]["description"]
    finally:
        running.stop()


def test_the_quote_of_what_was_paid_and_not_installed_spends_nothing(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=1.0, journal=True)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        body = registered_body(running, tmp_path, 7, target_folder="anim")
        job_id = call(running, "POST", "/api/v1/animate", body).json["id"]
        project = Path(body["project_root"])
        (project / "anim").write_text("a file where the folder goes")  # while it runs
        assert wait_final(running, job_id)["state"] == "failed"
        (project / "anim").unlink()

        quote = call(running, "POST", "/api/v1/quote", body)
        assert quote.status == 200, quote.body
        assert quote.json["spends"] == 0 and quote.json["credits"] > 0
        assert quote.json["earlier"] == {
            "id": job_id,
            "state": "failed",
            "why": "paid_not_installed",
        }
        assert quote.json["replaces"] == []
        pressed = call(running, "POST", "/api/v1/animate", body)
        assert pressed.status == 202 and pressed.json["id"] == job_id
        assert wait_final(running, job_id)["state"] == "done"
        assert len(creates(sandbox)) == 1
    finally:
        running.stop()
