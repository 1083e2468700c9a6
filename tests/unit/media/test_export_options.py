"""Sampling, letterboxing, pages and memory, checked through real exports."""

from __future__ import annotations

import io
import json
import re
import tarfile
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

from companion.media import ExportSpec, export_video
from tests.support.media import KEY, source_index_of


def test_fps_mode_over_a_range(index_video: Path, tmp_path: Path) -> None:
    spec = ExportSpec(
        formats=("spritesheet", "spritesheet_json", "frames_zip", "gif"),
        frame_count=None,
        fps=10,
        start=0.5,
        duration=1.05,
        width=160,
        height=120,
        name="r",
    )
    result = export_video(index_video, tmp_path, spec)
    doc = json.loads(result.paths("spritesheet_json")[0].read_text())
    durations = [f["duration"] for f in doc["frames"].values()]
    assert durations == [100] * 10 + [50]
    assert doc["meta"]["fps"] == 10
    with zipfile.ZipFile(result.paths("frames_zip")[0]) as archive:
        frames = [
            np.asarray(Image.open(io.BytesIO(archive.read(n))).convert("RGBA"))
            for n in sorted(archive.namelist())
        ]
    # Source speed, no interpolation: instant 0.5 + k/10 shows source frame floor(t * 24).
    expected = [int((0.5 + k / 10) * 24 + 1e-6) for k in range(11)]
    assert [source_index_of(f, 0.5) for f in frames] == expected
    gif = Image.open(result.paths("gif")[0])
    delays = []
    for i in range(gif.n_frames):
        gif.seek(i)
        delays.append(gif.info["duration"])
    assert delays == [100] * 10 + [50]


def test_letterbox_is_transparent_and_centred(index_video: Path, tmp_path: Path) -> None:
    result = export_video(
        index_video,
        tmp_path,
        ExportSpec(formats=("frames_zip",), frame_count=2, width=128, height=128, name="box"),
    )
    with zipfile.ZipFile(result.paths("frames_zip")[0]) as archive:
        frame = np.asarray(Image.open(io.BytesIO(archive.read("box_0000.png"))))
    assert frame.shape == (128, 128, 4)
    # 320x240 fits as 128x96: 16 transparent rows above and below.
    assert (frame[:16, :, 3] == 0).all() and (frame[-16:, :, 3] == 0).all()
    assert (frame[16:112, :, 3] == 255).all()
    assert source_index_of(frame, 0.4) == 0


def test_pixel_art_scaling_keeps_hard_edges(index_video: Path, tmp_path: Path) -> None:
    result = export_video(
        index_video,
        tmp_path,
        ExportSpec(
            formats=("frames_zip",), frame_count=1, width=640, height=480, pixel_art=True, name="px"
        ),
    )
    with zipfile.ZipFile(result.paths("frames_zip")[0]) as archive:
        frame = np.asarray(Image.open(io.BytesIO(archive.read("px_0000.png"))).convert("RGB"))
    # Upscaled 2x with nearest neighbour: every pixel appears as a 2x2 block.
    assert np.array_equal(frame[0::2, 0::2], frame[1::2, 1::2])


def test_pages_are_followed_by_every_sheet_format(index_video: Path, tmp_path: Path) -> None:
    formats = (
        "spritesheet",
        "spritesheet_json",
        "unity_meta",
        "unity_pack",
        "godot_pack",
        "unreal_paper2d_pack",
        "cocos_creator_pack",
    )
    result = export_video(
        index_video,
        tmp_path,
        ExportSpec(
            formats=formats, frame_count=70, width=1024, height=1024, key_color=KEY, name="big"
        ),
    )
    sheets = result.paths("spritesheet")
    assert [p.name for p in sheets] == ["big_p0.png", "big_p1.png"]
    sizes = [Image.open(p).size for p in sheets]
    assert sizes[0] == (8192, 8192) and max(sizes[1]) <= 8192
    docs = [json.loads(p.read_text()) for p in result.paths("spritesheet_json")]
    assert [d["meta"]["image"] for d in docs] == ["big_p0.png", "big_p1.png"]
    assert docs[0]["meta"]["related_multi_packs"] == ["big_p1.json"]
    assert sum(len(d["frames"]) for d in docs) == 70
    for doc, size in zip(docs, sizes, strict=True):
        for entry in doc["frames"].values():
            f = entry["frame"]
            assert f["x"] + f["w"] <= size[0] and f["y"] + f["h"] <= size[1]
    metas = [yaml.safe_load(p.read_text()) for p in result.paths("unity_meta")]
    assert [len(m["TextureImporter"]["spriteSheet"]["sprites"]) for m in metas] == [64, 6]
    assert metas[0]["guid"] != metas[1]["guid"]
    with zipfile.ZipFile(result.paths("godot_pack")[0]) as archive:
        tres = archive.read("big.tres").decode()
        assert {"big_p0.png", "big_p1.png"} <= set(archive.namelist())
    assert re.findall(r'path="([^"]+)"', tres) == ["big_p0.png", "big_p1.png"]  # beside it
    assert tres.count('atlas = ExtResource("2_sheet")') == 6
    with tarfile.open(result.paths("unity_pack")[0]) as archive:
        paths = {
            archive.extractfile(m).read().decode()  # type: ignore[union-attr]
            for m in archive.getmembers()
            if m.name.endswith("/pathname")
        }
    assert paths == {
        "Assets/Animations/big/big_p0.png",
        "Assets/Animations/big/big_p1.png",
        "Assets/Animations/big/big.anim",
    }
    with zipfile.ZipFile(result.paths("cocos_creator_pack")[0]) as archive:
        assert {"big_p0.plist", "big_p1.plist"} <= set(archive.namelist())
    with zipfile.ZipFile(result.paths("unreal_paper2d_pack")[0]) as archive:
        assert {"big_p0.paper2dsprites", "big_p1.paper2dsprites"} <= set(archive.namelist())


@pytest.mark.slow
def test_memory_stays_bounded_for_240_frames_at_1024(index_video: Path, tmp_path: Path) -> None:
    """240 RGBA frames of 1024x1024 are 1 GiB; the export must hold far less."""
    tracemalloc.start()
    try:
        export_video(
            index_video,
            tmp_path,
            ExportSpec(
                formats=("spritesheet", "frames_zip", "gif"),
                frame_count=240,
                width=1024,
                height=1024,
                name="mem",
            ),
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 400 * 2**20, f"peak {peak / 2**20:.0f} MiB"
