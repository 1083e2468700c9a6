"""A watched inbox with no prompt configured: the drop is refused into failed/ naming the
setting to add, before anything is quoted or spent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from companion.sandbox import SandboxThread
from tests.support.daemon import call
from tests.support.drops import png_bytes, reason, start_daemon, wait_until


def test_a_drop_without_a_prompt_is_refused_before_any_quote(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.2, journal=True)
    running = start_daemon(sandbox, tmp_path / "home")
    try:
        project = tmp_path / "game"
        project.mkdir()
        (project / "project.godot").write_text("config_version=5\n")
        reply = call(
            running,
            "POST",
            "/api/v1/projects",
            {"root": str(project), "engine": "godot", "inbox": "inbox"},
        )
        assert reply.status == 201, reply.body
        inbox = project / "inbox"
        (inbox / "knight.png").write_bytes(png_bytes(5))
        wait_until(lambda: (inbox / "failed" / "knight.png").exists(), running)
        why = reason(inbox, "knight.png")
        assert "no prompt" in why and "defaults" in why and "knight.yaml" in why
        entries = sandbox.call(lambda: list(sandbox.service.journal.entries))
        sent = [e.path for e in entries if e.method == "POST"]  # quotes, uploads, creates
        assert sent == []
        assert call(running, "GET", "/api/v1/jobs").json["data"] == []
    finally:
        running.stop()
