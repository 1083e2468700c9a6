"""A file that is not a picture (project.godot, notes.txt, an empty .png) named as the
image of a quote or an animation is a JSON 400 naming the field, before anything is
priced or spent; never a 500, never a job that fails later. (Dropped in an inbox, the
same files go to failed/: tests/integration/daemon/test_daemon_drops.py.)"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from tests.support.daemon import DaemonThread, call


@pytest.fixture
def project(daemon: DaemonThread, tmp_path: Path) -> Path:
    root = tmp_path / "game"
    (root / "art").mkdir(parents=True)
    draw_character(64).save(root / "art" / "hero.png")
    (root / "project.godot").write_text("config_version=5\n")
    (root / "notes.txt").write_text("walk cycle, 8 frames\n")
    (root / "empty.png").write_bytes(b"")
    whole = (root / "art" / "hero.png").read_bytes()
    (root / "art" / "cut.png").write_bytes(whole[: len(whole) // 2])  # valid header, cut short
    reply = call(daemon, "POST", "/api/v1/projects", {"root": str(root), "engine": "godot"})
    assert reply.status == 201, reply.json
    return root


@pytest.mark.parametrize("route", ["/api/v1/quote", "/api/v1/animate"])
def test_not_a_picture_is_a_400_naming_the_field(
    daemon: DaemonThread, project: Path, route: str
) -> None:
    base = {"project_root": str(project), "prompt": "walk"}
    for name in ("project.godot", "notes.txt", "empty.png"):
        reply = call(daemon, "POST", route, {**base, "image_path": name})
        assert reply.status == 400, (name, reply.status, reply.json)
        message = reply.error["message"]
        assert message.startswith("image_path: ") and name in message, message
        assert "PNG, JPEG or WebP" in message, message
    for field, value in (("last_frame_path", "notes.txt"), ("reference_paths", ["empty.png"])):
        body = {**base, "image_path": "art/hero.png", field: value}
        reply = call(daemon, "POST", route, body)
        assert reply.status == 400 and reply.error["message"].startswith(field), reply.json
    assert call(daemon, "GET", "/api/v1/jobs").json["data"] == []
    # The same project's real picture is still quoted.
    assert (
        call(daemon, "POST", "/api/v1/quote", {**base, "image_path": "art/hero.png"}).status == 200
    )


def test_a_length_the_model_does_not_make_is_a_400(daemon: DaemonThread, project: Path) -> None:
    """The listing names the lengths a model makes; 7 s, between 6 and 8, is refused
    at the quote for the model named, naming the field, and nothing is spent (with no
    model named the service's default is not assumed: the service decides, spec 2.10)."""
    base = {"project_root": str(project), "prompt": "walk", "image_path": "art/hero.png"}
    named = {"model": "sandbox-motion-1"}
    for route in ("/api/v1/quote", "/api/v1/animate"):
        reply = call(daemon, "POST", route, {**base, "video": {**named, "duration_seconds": 7}})
        assert reply.status == 400 and "duration_seconds" in reply.error["message"], reply.json
    assert call(daemon, "GET", "/api/v1/jobs").json["data"] == []
    quote = call(daemon, "POST", "/api/v1/quote", {**base, "video": {"duration_seconds": 8}})
    assert quote.status == 200, quote.json


@pytest.mark.parametrize("route", ["/api/v1/quote", "/api/v1/animate"])
def test_a_picture_cut_short_is_a_400_naming_the_file(
    daemon: DaemonThread, project: Path, route: str
) -> None:
    """Its header is whole, so only decoding it finds it cut short: done here, the
    service's INVALID_IMAGE (which names no local file) is never met and nothing is spent."""
    base = {"project_root": str(project), "prompt": "walk"}
    for field, value, named in (
        ("image_path", "art/cut.png", "image_path: art/cut.png: cannot be decoded"),
        ("last_frame_path", "art/cut.png", "last_frame_path: art/cut.png: cannot be decoded"),
        ("reference_paths", ["art/cut.png"], "reference_paths[0]: art/cut.png: cannot be"),
    ):
        body = {**base, "image_path": "art/hero.png", field: value}
        reply = call(daemon, "POST", route, body)
        assert reply.status == 400, reply.json
        message = reply.error["message"]
        assert message.startswith(named) and "save it again" in message, message
    whole = (project / "art" / "hero.png").read_bytes()
    inline = {**base, "image_base64": base64.b64encode(whole[: len(whole) // 2]).decode()}
    reply = call(daemon, "POST", route, inline)
    assert reply.status == 400 and reply.error["message"].startswith("image_base64: "), reply.json
    assert call(daemon, "GET", "/api/v1/jobs").json["data"] == []
