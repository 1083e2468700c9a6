"""The status page, rendered by headless Chromium against a running daemon."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from PIL import Image

from companion.media.demo_art import draw_character
from tests.conftest import TEST_KEY
from tests.daemon_helpers import DaemonThread
from tests.http_helpers import request
from tests.real_chromium import chromium, require_chromium
from tests.test_daemon import call

pytestmark = pytest.mark.browser


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
        for _ in range(300):
            if call(daemon, "GET", f"/api/v1/jobs/{job_id}").json["state"] == "done":
                break
            time.sleep(0.1)
        gif = call(daemon, "GET", f"/api/v1/jobs/{job_id}/preview.gif")
        assert gif.status == 200 and gif.headers["content-type"] == "image/gif"
        assert Image.open(io.BytesIO(gif.body)).n_frames == 6
        info = daemon.info
        link = f"http://127.0.0.1:{info['port']}/?token={info['token']}"
        # Without the link's token the page is closed.
        assert request("GET", f"http://127.0.0.1:{info['port']}/").status == 401
        dom = chromium(tmp_path, link, "--dump-dom")
        assert 'data-loaded="yes"' in dom, dom[:2000]
        assert f'id="job-{job_id}"' in dom and "state-done" in dom
        assert f"/api/v1/jobs/{job_id}/preview.gif" in dom
        assert "hero" in dom and "balance" in dom and "live" in dom
        assert info["token"] not in dom
        shot = tmp_path / "status.png"
        chromium(tmp_path, link, f"--screenshot={shot}", "--window-size=1100,500")
        assert shot.exists() and Image.open(shot).size == (1100, 500)
    finally:
        daemon.stop()
