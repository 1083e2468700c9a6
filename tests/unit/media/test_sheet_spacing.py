"""Padding and edge extrusion between spritesheet frames: every format that names frame
rectangles reads the one layout, and the pixels around each frame are what the layout
promises (its own edge repeated, then transparent gap)."""

from __future__ import annotations

import io
import json
import plistlib
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

from companion.cli.main import main as companion
from companion.media import ExportSpec, export_video
from tests.support.media import KEY

W, H, COUNT, PAD, EXT = 96, 72, 7, 3, 2
FORMATS = (
    "frames_zip",
    "spritesheet",
    "spritesheet_json",
    "unity_meta",
    "godot_pack",
    "unreal_paper2d_pack",
    "cocos_creator_pack",
)


def _frames(path: Path) -> list[np.ndarray]:
    with zipfile.ZipFile(path) as archive:
        return [
            np.asarray(Image.open(io.BytesIO(archive.read(n))).convert("RGBA"))
            for n in sorted(archive.namelist())
        ]


def test_every_consumer_reads_the_padded_layout(index_video: Path, tmp_path: Path) -> None:
    spec = ExportSpec(
        formats=FORMATS,
        frame_count=COUNT,
        width=W,
        height=H,
        key_color=KEY,
        name="pad",
        padding=PAD,
        extrude=EXT,
    )
    result = export_video(index_video, tmp_path, spec)
    sheet = np.asarray(Image.open(result.paths("spritesheet")[0]).convert("RGBA"))
    frames = _frames(result.paths("frames_zip")[0])
    doc = json.loads(result.paths("spritesheet_json")[0].read_text())
    rects = [
        (f["frame"]["x"], f["frame"]["y"], f["frame"]["w"], f["frame"]["h"])
        for f in (doc["frames"][str(i)] for i in range(COUNT))
    ]
    columns = 3  # ceil(sqrt(7))
    pitch_x, pitch_y = W + 2 * EXT + PAD, H + 2 * EXT + PAD
    assert sheet.shape[:2] == (PAD + 3 * pitch_y, PAD + columns * pitch_x)
    for index, (x, y, w, h) in enumerate(rects):
        assert (w, h) == (W, H)
        assert x == PAD + (index % columns) * pitch_x + EXT
        assert y == PAD + (index // columns) * pitch_y + EXT
        assert np.array_equal(sheet[y : y + h, x : x + w], frames[index]), index
        # The edge repeated outwards, then a transparent gap before the next slot.
        frame = frames[index]
        assert np.array_equal(sheet[y - EXT : y, x : x + w], np.repeat(frame[:1], EXT, 0))
        assert np.array_equal(sheet[y + h : y + h + EXT, x : x + w], np.repeat(frame[-1:], EXT, 0))
        assert np.array_equal(sheet[y : y + h, x - EXT : x], np.repeat(frame[:, :1], EXT, 1))
        gap = sheet[y - EXT - PAD : y - EXT, x - EXT : x + w + EXT]
        assert gap.shape[0] == PAD and not gap[..., 3].any()
    assert not sheet[:PAD].any() and not sheet[:, :PAD].any()

    # Unity slices: the same rectangles, y measured from the bottom.
    meta = yaml.safe_load(result.paths("unity_meta")[0].read_text())
    sprites = meta["TextureImporter"]["spriteSheet"]["sprites"]
    height = sheet.shape[0]
    assert [
        (s["rect"]["x"], height - s["rect"]["y"] - s["rect"]["height"], s["rect"]["width"])
        for s in sprites
    ] == [(x, y, w) for x, y, w, _ in rects]

    # Godot AtlasTexture regions.
    with zipfile.ZipFile(result.paths("godot_pack")[0]) as archive:
        tres = archive.read("pad.tres").decode()
    regions = [
        tuple(map(int, r))
        for r in re.findall(r"region = Rect2\((\d+), (\d+), (\d+), (\d+)\)", tres)
    ]
    assert regions == rects

    # Paper2D sprites and Cocos plist frames.
    with zipfile.ZipFile(result.paths("unreal_paper2d_pack")[0]) as archive:
        paper = json.loads(archive.read("pad.paper2dsprites"))
        plist_zip = zipfile.ZipFile(result.paths("cocos_creator_pack")[0])
        plist = plistlib.loads(plist_zip.read("pad.plist"))
        plist_zip.close()
    assert [
        (f["frame"]["x"], f["frame"]["y"], f["frame"]["w"], f["frame"]["h"])
        for f in paper["frames"].values()
    ] == rects
    assert [
        tuple(map(int, re.findall(r"\d+", f["textureRect"]))) for f in plist["frames"].values()
    ] == rects


def _cli_sheet(index_video: Path, out: Path, *extra: str) -> tuple[tuple[int, int], dict]:
    args = ["export", str(index_video), "--formats", "spritesheet,spritesheet_json"]
    args += ["--frame-count", "4", "--width", "64", "--height", "64", "--name", "s"]
    assert companion([*args, "--out", str(out), *extra]) == 0
    doc = json.loads((out / "s.json").read_text())
    return Image.open(out / "s.png").size, doc["frames"]["1"]["frame"]


def test_export_command_pads_by_default_but_not_for_pixel_art(
    index_video: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    size, second = _cli_sheet(index_video, tmp_path / "smooth")
    # 2x2 slots of 64 + 2*1 extrusion + 2 padding, plus the border's 2.
    assert size == (2 + 2 * 68, 2 + 2 * 68) and (second["x"], second["y"]) == (71, 3)
    size, second = _cli_sheet(index_video, tmp_path / "pixel", "--pixel-art")
    assert size == (128, 128) and (second["x"], second["y"]) == (64, 0)
    size, second = _cli_sheet(index_video, tmp_path / "set", "--padding", "0", "--extrude", "4")
    assert size == (2 * 72, 2 * 72) and (second["x"], second["y"]) == (76, 4)
    capsys.readouterr()
    bad = ["export", str(index_video), "--formats", "spritesheet", "--padding", "99"]
    assert companion([*bad, "--out", str(tmp_path / "bad")]) != 0
    err = capsys.readouterr().err
    assert "--padding" in err and "Traceback" not in err
    assert not (tmp_path / "bad").exists()


@pytest.mark.parametrize("field", ["padding", "extrude"])
def test_spacing_out_of_range_is_refused(index_video: Path, tmp_path: Path, field: str) -> None:
    from companion.media import MediaError

    spec = ExportSpec(formats=("spritesheet",), frame_count=2, **{field: 17})  # type: ignore[arg-type]
    with pytest.raises(MediaError, match=field):
        export_video(index_video, tmp_path / "o", spec)
