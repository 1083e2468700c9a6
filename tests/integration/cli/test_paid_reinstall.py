"""A job the service made and charged for whose outputs could not go in (the target
folder turned into a file while it ran) is installed, free, by the same request again
once the folder is fixed, and by its retry: the money shown stays the money spent.
Against a sandbox and the daemon on loopback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY, both_faces
from tests.support.daemon import DaemonThread, call, wait_final
from tests.support.paid import creates, registered_body

pytestmark = both_faces  # a money test: on both faces of the sandbox


def _installable(running: DaemonThread, project: Path, job_id: str) -> bool:
    rows = call(running, "GET", f"/api/v1/generations?project={project}").json["data"]
    return bool(next(r for r in rows if r["id"] == job_id)["installable"])


def test_the_same_request_again_installs_what_was_paid_for(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=1.0, journal=True)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        body = registered_body(running, tmp_path, 3, target_folder="anim")
        project = tmp_path / "game"
        made = call(running, "POST", "/api/v1/animate", body)
        assert made.status == 202, made.body
        job_id = made.json["id"]
        (project / "anim").write_text("a file where the folder goes")  # while it runs
        failed = wait_final(running, job_id)
        assert failed["state"] == "failed" and "without paying again" in failed["error"]
        assert len(creates(sandbox)) == 1

        (project / "anim").unlink()
        again = call(running, "POST", "/api/v1/animate", body)
        assert again.status == 202 and again.json["id"] == job_id  # the same job, resumed
        assert wait_final(running, job_id)["state"] == "done"
        assert (project / "anim" / "hero.png").is_file()
        assert len(creates(sandbox)) == 1  # made and paid for once

        # Done, outputs in place: the same request again only reports it.
        reported = call(running, "POST", "/api/v1/animate", body)
        assert reported.status == 200 and reported.json["id"] == job_id
        refused = call(running, "POST", f"/api/v1/jobs/{job_id}/retry")
        assert refused.status == 409 and refused.error["code"] == "NOT_RETRYABLE"
    finally:
        running.stop()


def test_a_retry_installs_what_was_paid_for(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=1.0, journal=True)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        body = registered_body(running, tmp_path, 4, target_folder="anim")
        project = tmp_path / "game"
        job_id = call(running, "POST", "/api/v1/animate", body).json["id"]
        (project / "anim").write_text("a file where the folder goes")
        assert wait_final(running, job_id)["state"] == "failed"
        # The paid video was kept though its outputs could not go in: the Generations
        # panel's free re-cut is refused only for the folder, saying why.
        recut = call(running, "POST", f"/api/v1/generations/{job_id}/recut", {"export": {}})
        assert recut.status == 400 and "anim: is a file" in recut.error["message"], recut.body
        # The Generations panel's row says it can be installed, free.
        assert _installable(running, project, job_id) is True

        (project / "anim").unlink()
        retried = call(running, "POST", f"/api/v1/jobs/{job_id}/retry")
        assert retried.status == 202, retried.body
        assert wait_final(running, job_id)["state"] == "done"
        assert _installable(running, project, job_id) is False
        assert (project / "anim" / "hero.png").is_file()
        assert len(creates(sandbox)) == 1
    finally:
        running.stop()
