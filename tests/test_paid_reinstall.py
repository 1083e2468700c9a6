"""A job the service made and charged for whose outputs could not go in (the target
folder turned into a file while it ran) is installed, free, by the same request again
once the folder is fixed, and by its retry: the money shown stays the money spent.
Against a sandbox and the daemon on loopback."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.daemon_helpers import DaemonThread
from tests.drop_helpers import DEFAULTS, png_bytes
from tests.test_daemon import call


def _creates(sandbox: SandboxThread) -> list[str]:
    entries = sandbox.call(lambda: list(sandbox.service.journal.entries))
    return [e.path for e in entries if e.method == "POST" and e.path.endswith("/animations")]


def _ended(running: DaemonThread, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job: dict[str, Any] = call(running, "GET", f"/api/v1/jobs/{job_id}").json
        if job["state"] in ("done", "failed", "cancelled"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not end")


def test_the_same_request_again_installs_what_was_paid_for(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=1.0, journal=True)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = tmp_path / "game"
        project.mkdir()
        (project / "hero.png").write_bytes(png_bytes(3))
        assert call(running, "POST", "/api/v1/projects", {"root": str(project)}).status == 201
        body: dict[str, Any] = {"project_root": str(project), "image_path": "hero.png"}
        body.update(DEFAULTS, name="hero", target_folder="anim")
        made = call(running, "POST", "/api/v1/animate", body)
        assert made.status == 202, made.body
        job_id = made.json["id"]
        (project / "anim").write_text("a file where the folder goes")  # while it runs
        failed = _ended(running, job_id)
        assert failed["state"] == "failed" and "without paying again" in failed["error"]
        assert len(_creates(sandbox)) == 1

        (project / "anim").unlink()
        again = call(running, "POST", "/api/v1/animate", body)
        assert again.status == 202 and again.json["id"] == job_id  # the same job, resumed
        assert _ended(running, job_id)["state"] == "done"
        assert (project / "anim" / "hero.png").is_file()
        assert len(_creates(sandbox)) == 1  # made and paid for once

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
        project = tmp_path / "game"
        project.mkdir()
        (project / "hero.png").write_bytes(png_bytes(4))
        assert call(running, "POST", "/api/v1/projects", {"root": str(project)}).status == 201
        body: dict[str, Any] = {"project_root": str(project), "image_path": "hero.png"}
        body.update(DEFAULTS, name="hero", target_folder="anim")
        job_id = call(running, "POST", "/api/v1/animate", body).json["id"]
        (project / "anim").write_text("a file where the folder goes")
        assert _ended(running, job_id)["state"] == "failed"
        # The Generations panel's free re-cut says how to get the paid video in.
        recut = call(running, "POST", f"/api/v1/generations/{job_id}/recut", {"export": {}})
        assert recut.status == 409 and recut.error["code"] == "NOT_INSTALLED", recut.body
        assert f"/api/v1/jobs/{job_id}/retry" in recut.error["message"]

        (project / "anim").unlink()
        retried = call(running, "POST", f"/api/v1/jobs/{job_id}/retry")
        assert retried.status == 202, retried.body
        assert _ended(running, job_id)["state"] == "done"
        assert (project / "anim" / "hero.png").is_file()
        assert len(_creates(sandbox)) == 1
    finally:
        running.stop()
