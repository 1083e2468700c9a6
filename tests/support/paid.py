"""What the tests of money against a daemon share: the creates the sandbox was sent (each
one a paid task), and a project registered with one picture and the body that
animates it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.sandbox import SandboxThread
from tests.support.daemon import DaemonThread, call
from tests.support.drops import DEFAULTS, png_bytes

PAID_CREATES = ("/v1/animations", "/v1/video-generations")


def creates(sandbox: SandboxThread) -> list[str]:
    """Every paid create the sandbox was sent, POST /animations or /video-generations (its
    journal must be on)."""
    entries = sandbox.call(lambda: list(sandbox.service.journal.entries))
    return [e.path for e in entries if e.method == "POST" and e.path in PAID_CREATES]


def registered_body(
    running: DaemonThread, tmp_path: Path, seed: int, **extra: Any
) -> dict[str, Any]:
    """tmp_path/game registered with hero.png (picture `seed`), and an animate body for it
    named hero, with the drop defaults and `extra` over them."""
    project = tmp_path / "game"
    project.mkdir()
    (project / "hero.png").write_bytes(png_bytes(seed))
    assert call(running, "POST", "/api/v1/projects", {"root": str(project)}).status == 201
    body: dict[str, Any] = {"project_root": str(project), "image_path": "hero.png"}
    body.update(DEFAULTS, name="hero", **extra)
    return body
