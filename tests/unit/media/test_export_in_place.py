"""Game-ready frames from generated clips, looked at in pixels: in place (camera shake,
drift and zoom taken out on the character's core), seamless loops (the span whose end
flows into its start), and trimmed sheets that keep every frame's position, identical
frames stored once."""

from __future__ import annotations

import json
import plistlib
import re
import statistics
import zipfile
from pathlib import Path

import av
import numpy as np
import pytest
import yaml
from PIL import Image

from companion.cli.main import main as companion
from companion.media import ExportSpec, export_video
from tests.support.alpha import rebuilt
from tests.support.media import spread, zip_frames
from tests.support.motion_clips import SIDE, settling_frames, shaky_frames, torso_box, write_clip


@pytest.fixture(scope="module")
def shaky_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_clip(tmp_path_factory.mktemp("clips") / "shaky.mov", shaky_frames())


@pytest.fixture(scope="module")
def settling_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_clip(tmp_path_factory.mktemp("clips") / "settling.mov", settling_frames())


def frames_of(clip: Path, folder: Path, **options: object) -> list[np.ndarray]:
    spec = ExportSpec(
        formats=("frames_zip",), frame_count=None, fps=24, width=SIDE, height=SIDE, **options
    )  # type: ignore[arg-type]
    return zip_frames(export_video(clip, folder, spec).paths("frames_zip")[0])


def test_in_place_holds_the_torso_still_under_shake_and_zoom(
    shaky_clip: Path, tmp_path: Path
) -> None:
    loose = [torso_box(f) for f in frames_of(shaky_clip, tmp_path / "loose")]
    held = [torso_box(f) for f in frames_of(shaky_clip, tmp_path / "held", in_place=True)]
    assert len(held) == len(loose) == 36
    # Without it the camera moves the torso about and zooms it.
    assert spread([b[0] for b in loose]) > 10 and spread([b[1] for b in loose]) > 10
    assert max(b[2] for b in loose) / min(b[2] for b in loose) > 1.06
    # With it: the torso within 2 px and 4 % in every frame.
    assert spread([b[0] for b in held]) <= 2 and spread([b[1] for b in held]) <= 2
    assert max(b[2] for b in held) / min(b[2] for b in held) <= 1.04


def seam_and_step(frames: list[np.ndarray]) -> tuple[float, float]:
    """The last frame into the first, and the median step between neighbours (RMS of
    premultiplied pixels), measured on what was written."""

    def distance(a: np.ndarray, b: np.ndarray) -> float:
        pa, pb = (f.astype(float) * (f[..., 3:4] / 255.0) for f in (a, b))
        return float(np.sqrt(((pa - pb) ** 2).mean()))

    steps = [distance(frames[i], frames[i + 1]) for i in range(len(frames) - 1)]
    return distance(frames[-1], frames[0]), statistics.median(steps)


def test_loop_auto_finds_the_seamless_span(
    settling_clip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole_seam, whole_step = seam_and_step(frames_of(settling_clip, tmp_path / "whole"))
    assert whole_seam > 3 * whole_step
    out = tmp_path / "loop"
    args = ["export", str(settling_clip), "--formats", "frames_zip", "--frame-count", "24"]
    args += ["--width", str(SIDE), "--height", str(SIDE), "--loop", "auto", "--json"]
    assert companion([*args, "--out", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    frames = zip_frames(out / "settling_frames.zip")
    seam, step = seam_and_step(frames)
    assert seam <= 1.5 * step
    # Whole cycles after the settling frames: 24 of the 36 that repeat.
    assert len(frames) == 24 and report["frames"] == 24
    assert report["loop"]["start"] >= 6 / 24 - 1e-6
    assert 0 <= report["loop"]["seam"] <= 1.5


def sheet_and_rects(folder: Path, name: str) -> tuple[np.ndarray, dict]:
    doc = json.loads((folder / f"{name}.json").read_text())
    return np.asarray(Image.open(folder / f"{name}.png").convert("RGBA")), doc


def test_trimmed_sheets_shrink_and_keep_every_pixel_in_place(
    settling_clip: Path, tmp_path: Path
) -> None:
    formats = ("frames_zip", "spritesheet", "spritesheet_json", "unity_meta", "godot_pack")
    formats += ("cocos_creator_pack",)
    base = {"formats": formats, "frame_count": None, "fps": 24, "width": SIDE, "height": SIDE}
    base["name"] = "s"
    plain = export_video(settling_clip, tmp_path / "plain", ExportSpec(**base))  # type: ignore[arg-type]
    trimmed = export_video(
        settling_clip,
        tmp_path / "trim",
        ExportSpec(**base, trim=True, padding=2, extrude=1),  # type: ignore[arg-type]
    )
    whole = zip_frames(plain.paths("frames_zip")[0])
    sheet, doc = sheet_and_rects(tmp_path / "trim", "s")
    plain_sheet, _ = sheet_and_rects(tmp_path / "plain", "s")
    assert sheet.shape[0] * sheet.shape[1] < 0.6 * plain_sheet.shape[0] * plain_sheet.shape[1]
    assert (tmp_path / "trim/s.png").stat().st_size < (tmp_path / "plain/s.png").stat().st_size
    entries = [doc["frames"][str(i)] for i in range(len(whole))]
    for index, entry in enumerate(entries):
        assert entry["trimmed"] and entry["sourceSize"] == {"w": SIDE, "h": SIDE}
        assert np.array_equal(rebuilt(sheet, entry), whole[index]), index
    # The cycle repeats: frames equal to an earlier one point at its rect.
    rects = [tuple(e["frame"].values()) for e in entries]
    assert len(set(rects)) < len(rects)
    for index in range(18, len(whole)):
        assert rects[index] == rects[index - 12] or not np.array_equal(
            whole[index], whole[index - 12]
        )

    # Godot: each AtlasTexture's margin puts its region back at its offset.
    with zipfile.ZipFile(trimmed.paths("godot_pack")[0]) as archive:
        tres = archive.read("s.tres").decode()
    margins = re.findall(r"margin = Rect2\((\d+), (\d+), (\d+), (\d+)\)", tres)
    assert [tuple(map(int, m)) for m in margins] == [
        (e["spriteSourceSize"]["x"], e["spriteSourceSize"]["y"],
         SIDE - e["frame"]["w"], SIDE - e["frame"]["h"])
        for e in entries
    ]  # fmt: skip
    # Unity: a custom pivot on each cut at the whole frame's bottom centre.
    meta = yaml.safe_load(trimmed.paths("unity_meta")[0].read_text())
    for sprite, entry in zip(
        meta["TextureImporter"]["spriteSheet"]["sprites"], entries, strict=True
    ):
        f, s = entry["frame"], entry["spriteSourceSize"]
        assert sprite["alignment"] == 9
        assert sprite["pivot"]["x"] * f["w"] + s["x"] == pytest.approx(SIDE / 2, abs=1e-3)
        bottom = SIDE - s["y"] - f["h"]  # the cut's bottom edge above the frame's
        assert sprite["pivot"]["y"] * f["h"] + bottom == pytest.approx(0, abs=1e-3)
    # Cocos: the offset from the frame's centre, y up.
    with zipfile.ZipFile(trimmed.paths("cocos_creator_pack")[0]) as archive:
        plist = plistlib.loads(archive.read("s.plist"))
    first = plist["frames"]["s_0000.png"]
    f, s = entries[0]["frame"], entries[0]["spriteSourceSize"]
    assert first["spriteSourceSize"] == f"{{{SIDE},{SIDE}}}"
    offset = (s["x"] + f["w"] / 2 - SIDE / 2, SIDE / 2 - s["y"] - f["h"] / 2)
    assert first["spriteOffset"] == f"{{{offset[0]:g},{offset[1]:g}}}"


def test_an_empty_frame_trims_to_one_clear_pixel(tmp_path: Path) -> None:
    blank = [np.zeros((32, 32, 4), dtype=np.uint8)] * 3
    clip = write_clip(tmp_path / "blank.mov", blank)
    spec = ExportSpec(("spritesheet", "spritesheet_json"), frame_count=3, width=32, height=32,
                      name="b", trim=True)  # fmt: skip
    export_video(clip, tmp_path / "out", spec)
    sheet, doc = sheet_and_rects(tmp_path / "out", "b")
    assert sheet.shape[:2] == (1, 1) and not sheet.any()
    assert {tuple(e["frame"].values()) for e in doc["frames"].values()} == {(0, 0, 1, 1)}


def test_a_loops_frames_are_the_exact_frames_of_its_span(tmp_path: Path) -> None:
    # The loop search looks at frames decoded without H.264's deblocking filter; what is
    # exported must be the span decoded exactly, as a plain export of it gives it. A
    # coarse encode (high quantizer), where the filter changes many pixels.
    clip = tmp_path / "settling.mp4"
    with av.open(str(clip), "w") as container:
        stream = container.add_stream("libx264", rate=24, options={"crf": "40"})
        stream.width = stream.height = SIDE
        stream.pix_fmt = "yuv420p"
        for pixels in settling_frames():
            alpha = pixels[..., 3:4].astype(np.float32) / 255
            green = np.array([0, 255, 0], dtype=np.float32)
            keyed = (pixels[..., :3] * alpha + green * (1 - alpha)).astype(np.uint8)
            container.mux(stream.encode(av.VideoFrame.from_ndarray(keyed, format="rgb24")))
        container.mux(stream.encode())
    options = {"formats": ("frames_zip",), "frame_count": 12, "width": SIDE, "height": SIDE,
               "key_color": (0, 255, 0)}  # fmt: skip
    looped = export_video(clip, tmp_path / "loop", ExportSpec(**options, loop=True))  # type: ignore[arg-type]
    plan = looped.plan
    assert plan.duration < 48 / 24 - 1e-6  # a span was chosen, not the whole clip
    span = ExportSpec(**options, start=plan.start, duration=plan.duration)  # type: ignore[arg-type]
    plain = export_video(clip, tmp_path / "span", span)
    assert plain.plan.times == plan.times
    loop_frames = zip_frames(looped.paths("frames_zip")[0])
    assert len(loop_frames) == 12
    plain_frames = zip_frames(plain.paths("frames_zip")[0])
    for index, (a, b) in enumerate(zip(loop_frames, plain_frames, strict=True)):
        assert np.array_equal(a, b), f"frame {index} differs from the plain export's"


def test_the_daemon_preview_puts_trimmed_frames_back(settling_clip: Path, tmp_path: Path) -> None:
    from companion.daemon.routes.gif_preview import Caps, _from_sheet

    spec = ExportSpec(("spritesheet", "spritesheet_json", "frames_zip"), frame_count=6,
                      width=SIDE, height=SIDE, name="p", trim=True)  # fmt: skip
    result = export_video(settling_clip, tmp_path, spec)
    frames, _ = _from_sheet(tmp_path / "p.png", tmp_path / "p.json", Caps())
    whole = zip_frames(result.paths("frames_zip")[0])
    assert [f.size for f in frames] == [(128, 128)] * 6  # the whole frame, thumbnailed
    for shown, expected in zip(frames, whole, strict=True):
        small = Image.fromarray(expected).copy()
        small.thumbnail((128, 128))
        assert np.array_equal(np.asarray(shown)[..., 3], np.asarray(small)[..., 3])
