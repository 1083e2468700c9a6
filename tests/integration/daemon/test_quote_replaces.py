"""The quote says, before anything is paid, which files of an earlier job of the same name
the new job will replace unasked (as a re-import would): `replaces`, each with the
earlier job's id. A file the user changed is never among them: it is a conflict."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.daemon import DaemonThread, call
from tests.support.drops import DEFAULTS, png_bytes
from tests.support.paid import registered_body


def _done(daemon: DaemonThread, job_id: str) -> dict[str, Any]:
    for _ in range(600):
        job: dict[str, Any] = call(daemon, "GET", f"/api/v1/jobs/{job_id}").json
        if job["state"] in ("done", "failed", "cancelled"):
            assert job["state"] == "done", job
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not end")


def test_the_quote_names_the_earlier_jobs_files_it_replaces(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.2)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        body = registered_body(running, tmp_path, 5)
        first = call(running, "POST", "/api/v1/quote", body)
        assert first.status == 200, first.body
        assert first.json["replaces"] == [] and first.json["conflicts"] == []
        made = call(running, "POST", "/api/v1/animate", body)
        assert made.status == 202, made.body
        earlier = _done(running, made.json["id"])["id"]
        written = [p for p in first.json["writes"] if Path(p).is_file()]
        assert written, first.json["writes"]

        again = {**body, "prompt": "walk cycle"}
        quote = call(running, "POST", "/api/v1/quote", again)
        assert quote.status == 200, quote.body
        assert quote.json["conflicts"] == []
        assert quote.json["replaces"] == [
            {"path": p, "job": earlier, "name": "hero"} for p in written
        ]

        # A file the user changed since is theirs: a conflict, never replaced unasked.
        changed = Path(written[0])
        changed.write_bytes(changed.read_bytes() + b"\n")
        quote = call(running, "POST", "/api/v1/quote", again)
        assert [c["path"] for c in quote.json["conflicts"]] == [str(changed)]
        assert str(changed) not in [r["path"] for r in quote.json["replaces"]]
        assert [r["path"] for r in quote.json["replaces"]] == written[1:]

        document = call(running, "GET", "/api/v1/openapi.json").json
        described = document["components"]["schemas"]["QuoteOut"]["properties"]["replaces"]
        assert "earlier job" in described["description"]
    finally:
        running.stop()


@pytest.mark.parametrize("engine", ["godot", "other"])
def test_the_quote_names_the_earlier_files_a_new_set_removes(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path, engine: str
) -> None:
    """Writing hero again as a GIF only, into a Godot project, removes the earlier hero's
    sheet, its data and its resource (one name, one set): the quote names them first,
    each marked removed. A plain folder keeps them, and the quote says nothing of it."""
    sandbox = make_sandbox(task_seconds=0.2)
    running = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = tmp_path / "game"
        project.mkdir()
        if engine == "godot":
            (project / "project.godot").write_text("config_version=5\n")
        (project / "hero.png").write_bytes(png_bytes(6))
        where = {"root": str(project), "engine": engine}
        registered = call(running, "POST", "/api/v1/projects", where)
        assert registered.status == 201, registered.body
        body = {"project_root": str(project), "image_path": "hero.png", **DEFAULTS}
        body["name"] = "hero"
        made = call(running, "POST", "/api/v1/animate", body)
        assert made.status == 202, made.body
        earlier = _done(running, made.json["id"])["id"]
        first = call(running, "POST", "/api/v1/quote", body).json  # what the set holds
        held = sorted(p for p in first["writes"] if Path(p).is_file())
        assert len(held) >= 2, first

        gif_only = {**body, "prompt": "walk cycle", "export": {"output_formats": ["gif"]}}
        quote = call(running, "POST", "/api/v1/quote", gif_only)
        assert quote.status == 200 and quote.json["conflicts"] == [], quote.body
        removed = sorted(r["path"] for r in quote.json["replaces"] if r.get("removed"))
        assert removed == (held if engine == "godot" else []), quote.json["replaces"]
        assert {r["job"] for r in quote.json["replaces"]} <= {earlier}
        gone = call(running, "POST", "/api/v1/animate", gif_only)
        assert gone.status == 202, gone.body
        _done(running, gone.json["id"])
        # As announced, and only those.
        assert sorted(p for p in held if not Path(p).exists()) == removed
        assert all(Path(p).is_file() for p in quote.json["writes"])
    finally:
        running.stop()
