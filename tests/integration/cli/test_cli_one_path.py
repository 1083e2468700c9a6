"""`companion animate` and `demo` run on the job engine: a kill -9 then the same
command again pays once, and `companion credits` counts every spend, whichever way
the work came in (animate, demo, jobs, the daemon)."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from companion.media.demo_art import draw_character
from tests.conftest import TEST_KEY
from tests.support.calls import Api, request
from tests.support.cli import companion, tasks
from tests.support.daemon import DaemonThread

pytestmark = pytest.mark.slow

SMALL = ["--frame-count", "4", "--width", "64", "--height", "64"]
SHORT = ["--seconds", "1", "--resolution", "360p"]


@pytest.mark.parametrize("point", ["after_persist", "after_send"])
def test_kill_during_animate_then_the_same_command_pays_once(
    make_sandbox, tmp_path: Path, point: str
) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    api = Api(sandbox.base_url, key=TEST_KEY)
    draw_character(64).save(tmp_path / "hero.png")
    out = tmp_path / "out"
    args = ["animate", str(tmp_path / "hero.png"), "--prompt", "idle", "--formats"]
    args += ["spritesheet,gif", *SMALL, *SHORT, "--out", str(out)]
    killed = companion(sandbox.base_url, tmp_path / "home", *args, crash=point)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert len(tasks(api)) == (1 if point == "after_send" else 0)
    again = companion(sandbox.base_url, tmp_path / "home", *args)
    assert again.returncode == 0, again.stderr
    assert "resuming job" in again.stderr
    remote = tasks(api)
    assert len(remote) == 1 and remote[0]["status"] == "succeeded"
    # Only the formats asked for; the generated video stays on the service.
    assert sorted(p.name for p in out.iterdir()) == ["hero.gif", "hero.png"]
    spent = 1000 - api.get("/credits/balance").json["available"]
    assert spent == remote[0]["credits"]["charged"] > 0


def test_a_failed_export_still_installs_the_paid_video(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    draw_character(64).save(tmp_path / "hero.png")
    out = tmp_path / "out"
    failed = companion(
        sandbox.base_url, tmp_path / "home", "animate", str(tmp_path / "hero.png"),
        "--prompt", "idle sandbox:export-fail", "--formats", "gif", *SMALL, *SHORT,
        "--out", str(out), "--service-export",  # the service's export stage fails
    )  # fmt: skip
    assert failed.returncode == 1 and "EXPORT_FAILED" in failed.stderr.splitlines()[-1]
    assert "Traceback" not in failed.stderr
    assert (out / "hero.mp4").stat().st_size > 0


def wait_daemon_job(daemon: DaemonThread, job_id: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {daemon.info['token']}"}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job: dict[str, Any] = request(
            "GET", f"{daemon.url}/api/v1/jobs/{job_id}", headers=headers
        ).json
        if job["state"] in ("done", "failed", "cancelled"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not finish")


def daemon_animation(home: Path, base_url: str, project: Path) -> None:
    daemon = DaemonThread(home, base_url, TEST_KEY).start()
    try:
        headers = {
            "Authorization": f"Bearer {daemon.info['token']}",
            "Content-Type": "application/json",
        }

        def post(path: str, body: dict[str, Any]) -> Any:
            return request(
                "POST", daemon.url + path, body=json.dumps(body).encode(), headers=headers
            )

        assert post("/api/v1/projects", {"root": str(project)}).status == 201
        body = {
            "project_root": str(project),
            "image_path": "slime.png",
            "prompt": "bounce",
            "video": {"duration_seconds": 1, "resolution": "360p"},
            "export": {"frame_count": 4, "output_width": 64, "output_height": 64},
        }
        accepted = post("/api/v1/animate", body)
        assert accepted.status == 202, accepted.body
        assert wait_daemon_job(daemon, accepted.json["id"])["state"] == "done"
    finally:
        daemon.stop()


def test_credits_count_animate_demo_jobs_and_daemon(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    base, home = sandbox.base_url, tmp_path / "home"
    draw_character(64).save(tmp_path / "hero.png")
    animate = companion(
        base, home, "animate", str(tmp_path / "hero.png"), "--prompt", "walk",
        "--formats", "gif", *SMALL, *SHORT, "--out", str(tmp_path / "a"), "--json",
    )  # fmt: skip
    assert animate.returncode == 0, animate.stderr
    summary = json.loads(animate.stdout)  # the one JSON line, nothing else on stdout
    assert summary["state"] == "done" and summary["credits"] > 0
    assert [Path(o["path"]).name for o in summary["outputs"]] == ["hero.gif"]
    demo = companion(base, home, "demo", "--out", str(tmp_path / "demo"))
    assert demo.returncode == 0, demo.stderr
    added = companion(
        base, home, "jobs", "add", str(tmp_path / "hero.png"), "--prompt", "wave",
        "--formats", "spritesheet", *SMALL, *SHORT, "--target", str(tmp_path / "j"),
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert companion(base, home, "jobs", "run").returncode == 0
    project = tmp_path / "game"
    project.mkdir()
    draw_character(48).save(project / "slime.png")
    daemon_animation(home, base, project)

    credits = companion(base, home, "credits", "--json")
    assert credits.returncode == 0, credits.stderr
    books = json.loads(credits.stdout)  # stdout holds the JSON and nothing else
    api = Api(base, key=TEST_KEY)
    spent = 1000 - api.get("/credits/balance").json["available"]
    assert books["available"] == 1000 - spent
    assert books["today"] == books["month"] == spent
    assert len(tasks(api)) == 4 and len(books["jobs"]) == 4
    assert all(row["credits"] > 0 for row in books["jobs"])
    # No job uses a staging folder any more: none is left behind.
    assert not list(tmp_path.rglob(".companion-staging~"))
