"""The status page, rendered by headless Chromium against a running daemon."""

from __future__ import annotations

import io
import socket
import time
from pathlib import Path

import pytest
from PIL import Image

from companion.media.demo_art import draw_character
from tests.conftest import TEST_KEY
from tests.support.calls import request
from tests.support.daemon import DaemonThread, call
from tests.support.real_chromium import chromium, require_chromium

pytestmark = pytest.mark.browser


@pytest.mark.slow
def test_status_page_shows_jobs_credits_and_previews(make_sandbox, tmp_path: Path) -> None:
    require_chromium()
    sandbox = make_sandbox(task_seconds=0.2)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = tmp_path / "game"
        (project / "art").mkdir(parents=True)
        draw_character(64).save(project / "art" / "hero.png")
        call(daemon, "POST", "/api/v1/projects", {"root": str(project)})
        body = {
            "project_root": str(project),
            "image_path": "art/hero.png",
            "prompt": "idle",
            "video": {"duration_seconds": 1, "resolution": "360p"},
            "export": {
                "frame_count": 6,
                "output_width": 64,
                "output_height": 64,
                "output_formats": ["spritesheet", "spritesheet_json"],
            },
        }
        job_id = call(daemon, "POST", "/api/v1/animate", body).json["id"]
        # A job whose outputs hold no frames to preview (a spritesheet without its JSON).
        body["export"]["output_formats"] = ["spritesheet"]
        body["name"] = "bare"
        bare_id = call(daemon, "POST", "/api/v1/animate", body).json["id"]
        for _ in range(300):
            states = {
                call(daemon, "GET", f"/api/v1/jobs/{j}").json["state"] for j in (job_id, bare_id)
            }
            if states == {"done"}:
                break
            time.sleep(0.1)
        assert call(daemon, "GET", f"/api/v1/jobs/{bare_id}").json["preview"] is False
        gif = call(daemon, "GET", f"/api/v1/jobs/{job_id}/preview.gif")
        assert gif.status == 200 and gif.headers["content-type"] == "image/gif"
        assert Image.open(io.BytesIO(gif.body)).n_frames == 6
        # The books beside the balance: held, spent and released apart, and in agreement.
        status = call(daemon, "GET", "/api/v1/status").json
        books = status["books"]
        assert books["spent_today"] == 1000 - status["balance"] > 0
        assert books["held"] == 0 and books["disagreement"] is None
        info = daemon.info
        base = f"http://127.0.0.1:{info['port']}"
        # The daemon's long-lived token in an address is no way in.
        assert request("GET", f"{base}/?token={info['token']}").status == 401
        assert request("GET", f"{base}/").status == 401
        link = call(daemon, "POST", "/api/v1/status-link").json["url"]
        assert link.startswith(f"{base}/?code=") and info["token"] not in link
        dom = chromium(tmp_path, link, "--dump-dom")
        assert 'data-loaded="yes"' in dom, dom[:2000]
        assert f'id="job-{job_id}"' in dom and "state-done" in dom
        assert f"/api/v1/jobs/{job_id}/preview.gif" in dom
        # No picture (and so no broken one) for the job with nothing to preview.
        assert f'id="job-{bare_id}"' in dom and f"/api/v1/jobs/{bare_id}/preview.gif" not in dom
        # The code opened one session; the same link again is refused.
        assert request("GET", link).status == 401
        assert "hero" in dom and "balance" in dom and "live" in dom
        assert 'id="books"' in dom and f"spent today {books['spent_today']}" in dom
        assert info["token"] not in dom
        shot = tmp_path / "status.png"
        fresh = call(daemon, "POST", "/api/v1/status-link").json["url"]
        chromium(tmp_path, fresh, f"--screenshot={shot}", "--window-size=1100,500")
        assert shot.exists() and Image.open(shot).size == (1100, 500)
    finally:
        daemon.stop()


def test_status_page_says_when_the_service_does_not_answer(tmp_path: Path) -> None:
    require_chromium()
    with socket.socket() as probe:  # a port where nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    daemon = DaemonThread(tmp_path / "home", f"http://127.0.0.1:{port}/v1", TEST_KEY).start()
    try:
        status = call(daemon, "GET", "/api/v1/status").json
        assert status["reachable"] is False and status["service_error"]
        link = call(daemon, "POST", "/api/v1/status-link").json["url"]
        dom = chromium(tmp_path, link, "--dump-dom")
        assert 'data-loaded="yes"' in dom, dom[:2000]
        assert 'id="service-away"' in dom and "does not answer" in dom
    finally:
        daemon.stop()
