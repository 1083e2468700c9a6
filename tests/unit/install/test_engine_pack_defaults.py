"""An engine pack (Godot, Unity) is what a game uses as it is: asked for without a word on
finishing, its sheet is trimmed (positions kept) and, transparent, its frames are held in
place; `--no-trim`, `--no-in-place` (or `"trim": false`, `"in_place": false`) say
otherwise. In place on opaque frames is refused, naming the way out: registering the whole
frame would hold the background still, not the character."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import av
import numpy as np
import pytest

from companion.cli.main import main as companion
from companion.jobs import Finishing, finishing
from tests.support.daemon import body, call, godot_project, wait_final
from tests.support.drops import start_daemon
from tests.support.media import spread, zip_frames
from tests.support.motion_clips import SIDE, shaky_frames, torso_box, write_clip

PACK = "spritesheet,spritesheet_json,godot_pack,frames_zip"


@pytest.fixture(scope="module")
def shaky_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_clip(tmp_path_factory.mktemp("clips") / "shaky.mov", shaky_frames())


@pytest.fixture(scope="module")
def green_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same walk, opaque on a green background (as a keyed generation comes back)."""
    frames = []
    for frame in shaky_frames(12):
        alpha = frame[..., 3:4].astype(np.float32) / 255
        green = np.array([0, 255, 0], dtype=np.float32)
        rgb = frame[..., :3] * alpha + green * (1 - alpha)
        opaque = np.full(frame.shape, 255, dtype=np.uint8)
        opaque[..., :3] = rgb.round().astype(np.uint8)
        frames.append(opaque)
    path = tmp_path_factory.mktemp("clips") / "green.mp4"
    with av.open(str(path), "w") as container:  # as the service's clip comes: H.264, no alpha
        stream = container.add_stream("libx264", rate=24)
        stream.width, stream.height, stream.pix_fmt = SIDE, SIDE, "yuv420p"
        for pixels in frames:
            frame = av.VideoFrame.from_ndarray(pixels[..., :3].copy(), format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def test_the_defaults_table() -> None:
    def decided(formats: list[str], said: Finishing | None, alpha: bool) -> dict[str, bool]:
        return finishing(formats, said, alpha).switches()

    # pixel_art: off unless the picture is pixel art drawn on a grid (pixel=True).
    assert decided(["spritesheet"], None, True) == {"in_place": False, "loop": False,
                                                    "trim": False, "pixel_art": False}  # fmt: skip
    assert decided(["spritesheet", "godot_pack"], None, True) == {
        "in_place": True, "loop": False, "trim": True, "pixel_art": False}  # fmt: skip
    assert decided(["unity_pack"], Finishing(in_place=None), False) == {
        "in_place": False, "loop": False, "trim": True, "pixel_art": False}  # fmt: skip
    assert finishing(["spritesheet"], None, True, pixel=True).pixel_art is True
    said = Finishing(in_place=False, trim=False, loop=True, pixel_art=False)
    assert finishing(["godot_pack"], said, True, pixel=True) == said
    small = Finishing(frame_width=32)  # the sides said are kept, the switches decided
    assert finishing(["godot_pack"], small, False) == Finishing(
        in_place=False, loop=False, trim=True, pixel_art=False, frame_width=32)  # fmt: skip


def _export(clip: Path, out: Path, *flags: str) -> int:
    args = ["export", str(clip), "--formats", PACK, "--fps", "24"]
    return companion([*args, "--width", str(SIDE), "--height", str(SIDE), *flags,
                      "--out", str(out)])  # fmt: skip


def test_an_engine_pack_export_is_trimmed_and_held_in_place_unasked(
    shaky_clip: Path, tmp_path: Path
) -> None:
    assert _export(shaky_clip, tmp_path / "pack") == 0
    frames = json.loads((tmp_path / "pack" / "shaky.json").read_text())["frames"].values()
    assert any(f["trimmed"] for f in frames)
    assert all(f["sourceSize"] == {"w": SIDE, "h": SIDE} for f in frames)
    held = [torso_box(f) for f in zip_frames(tmp_path / "pack" / "shaky_frames.zip")]
    assert spread([b[0] for b in held]) <= 2 and spread([b[1] for b in held]) <= 2, held

    assert _export(shaky_clip, tmp_path / "asis", "--no-trim", "--no-in-place") == 0
    frames = json.loads((tmp_path / "asis" / "shaky.json").read_text())["frames"].values()
    assert not any(f["trimmed"] for f in frames)
    loose = [torso_box(f) for f in zip_frames(tmp_path / "asis" / "shaky_frames.zip")]
    assert spread([b[0] for b in loose]) > 10, loose


def test_in_place_on_an_opaque_green_clip_is_refused_then_keyed(
    green_clip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _export(green_clip, tmp_path / "refused", "--in-place") == 2
    said = capsys.readouterr().err
    assert "--in-place" in said and "--transparent" in said, said
    assert not (tmp_path / "refused").exists() or not any((tmp_path / "refused").iterdir())
    # Without a word on it an opaque pack is trimmed, not held (nothing to read it by).
    assert _export(green_clip, tmp_path / "opaque") == 0
    loose = [torso_box(f) for f in zip_frames(tmp_path / "opaque" / "green_frames.zip")]
    assert spread([b[0] for b in loose]) > 10, loose
    # Keyed, it is held in place: the torso stays where the first frame has it (within
    # 3 px: H.264's chroma blurs the keyed edges the registration reads).
    assert _export(green_clip, tmp_path / "keyed", "--in-place", "--transparent") == 0
    held = [torso_box(f) for f in zip_frames(tmp_path / "keyed" / "green_frames.zip")]
    assert spread([b[0] for b in held]) <= 3 and spread([b[1] for b in held]) <= 3, held


@pytest.mark.slow
def test_the_daemon_trims_and_holds_an_engine_pack_unasked(
    make_sandbox: Any, tmp_path: Path
) -> None:
    sandbox = make_sandbox(task_seconds=0.2, journal=True)
    running = start_daemon(sandbox, tmp_path / "home")
    try:
        project = godot_project(running, tmp_path)
        first = call(running, "POST", "/api/v1/animate", body(project, "walk"))
        assert first.status == 202, first.body
        assert wait_final(running, first.json["id"])["state"] == "done"
        frames = json.loads((project / "animations" / "hero.json").read_text())["frames"]
        assert any(f["trimmed"] for f in frames.values())
        listed = call(running, "GET", f"/api/v1/generations?project={project}").json["data"]
        local = listed[0]["settings"]["local_export"]
        assert local["in_place"] is True and local["trim"] is True, local
        # Said off: an untrimmed sheet, as the service's export makes it (a free re-cut).
        plain = body(project, "walk", in_place=False, trim=False, name="plain")
        cut = call(running, "POST", "/api/v1/animate", plain)
        assert cut.status == 202, cut.body
        assert wait_final(running, cut.json["id"])["state"] == "done"
        frames = json.loads((project / "animations" / "plain.json").read_text())["frames"]
        assert not any(f["trimmed"] for f in frames.values())
    finally:
        running.stop()
