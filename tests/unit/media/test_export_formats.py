"""Each of the thirteen formats, checked with independent readers (PyAV, json, plistlib,
zipfile, tarfile, yaml, regular expressions), not with the code that wrote it."""

from __future__ import annotations

import io
import json
import plistlib
import re
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image
from unityparser import UnityDocument

from companion.media import FORMATS, ExportResult, ExportSpec, export_video
from tests.support.media import KEY, decode_rgba, source_index_of

W, H = 160, 120  # half the source size: scale 0.5, no letterbox
COUNT = 12
EXPECTED_SOURCE = [4 * i for i in range(COUNT)]  # 12 frames over 48: every fourth


@pytest.fixture(scope="module")
def exported(index_video: Path, tmp_path_factory: pytest.TempPathFactory) -> ExportResult:
    out = tmp_path_factory.mktemp("export") / "out"
    spec = ExportSpec(
        formats=FORMATS, frame_count=COUNT, width=W, height=H, key_color=KEY, name="hero"
    )
    return export_video(index_video, out, spec)


def one(result: ExportResult, fmt: str) -> Path:
    paths = result.paths(fmt)
    assert len(paths) == 1, (fmt, paths)
    return paths[0]


def zip_pngs(path: Path) -> dict[str, np.ndarray]:
    with zipfile.ZipFile(path) as archive:
        return {
            n: np.asarray(Image.open(io.BytesIO(archive.read(n))).convert("RGBA"))
            for n in archive.namelist()
            if n.endswith(".png")
        }


def check_keyed(frame: np.ndarray, index: int) -> None:
    assert frame[2, 2, 3] == 0, "key colour should be transparent"
    x = int((20 + 5 * index) * 0.5) + 10  # inside the square
    pixel = frame[60, x]
    assert pixel[3] > 240 and pixel[0] > 180 and pixel[1] < 80, pixel


def test_all_thirteen_formats_written(exported: ExportResult) -> None:
    assert {o.format for o in exported.outputs} == set(FORMATS)
    for output in exported.outputs:
        assert output.path.is_file() and output.path.stat().st_size > 0
    assert not [p for p in one(exported, "gif").parent.parent.iterdir() if ".partial-" in p.name]


def test_clip_video_is_h264_of_every_source_frame(exported: ExportResult) -> None:
    frames, times, pix = decode_rgba(one(exported, "clip_video"))
    assert len(frames) == 48 and pix == "yuv420p"
    assert frames[0].shape[:2] == (H, W)
    assert [source_index_of(f, 0.5) for f in frames[::8]] == list(range(0, 48, 8))
    assert times[-1] == pytest.approx(47 / 24, abs=0.01)


@pytest.mark.parametrize(
    "fmt,decoder,pixel",
    [("webm_alpha", "libvpx-vp9", "yuva420p"), ("prores_4444", None, "yuva444p")],
)
def test_alpha_videos_carry_alpha_and_timing(
    exported: ExportResult, fmt: str, decoder: str | None, pixel: str
) -> None:
    path = one(exported, fmt)
    frames, times, pix = decode_rgba(path, decoder)
    assert pix.startswith(pixel)
    assert len(frames) == COUNT
    assert [source_index_of(f, 0.5) for f in frames] == EXPECTED_SOURCE
    for i, frame in enumerate(frames):
        check_keyed(frame, EXPECTED_SOURCE[i])
    assert np.diff(times) == pytest.approx([2 / COUNT] * (COUNT - 1), abs=0.002)
    if fmt == "prores_4444":
        import av

        with av.open(str(path)) as c:
            assert c.streams.video[0].codec_context.profile == "4444"


def test_gif_loops_with_frame_delays_and_transparency(exported: ExportResult) -> None:
    image = Image.open(one(exported, "gif"))
    assert image.n_frames == COUNT and image.info["loop"] == 0
    delays = []
    for i in range(COUNT):
        image.seek(i)
        delays.append(image.info["duration"])
        rgba = np.asarray(image.convert("RGBA"))
        assert rgba[2, 2, 3] == 0
        assert source_index_of(rgba, 0.5) == EXPECTED_SOURCE[i]
    assert sum(delays) == 2000 and set(delays) <= {160, 170}


def test_frames_zip_zero_padded_pngs(exported: ExportResult) -> None:
    frames = zip_pngs(one(exported, "frames_zip"))
    assert sorted(frames) == [f"hero_{i:04d}.png" for i in range(COUNT)]
    for i, name in enumerate(sorted(frames)):
        assert frames[name].shape == (H, W, 4)
        assert source_index_of(frames[name], 0.5) == EXPECTED_SOURCE[i]
        check_keyed(frames[name], EXPECTED_SOURCE[i])


def test_spritesheet_and_json_agree_with_the_frames(exported: ExportResult) -> None:
    sheet = np.asarray(Image.open(one(exported, "spritesheet")))
    assert sheet.shape[2] == 4
    doc = json.loads(one(exported, "spritesheet_json").read_text())
    meta = doc["meta"]
    assert meta["app"] and meta["image"] == one(exported, "spritesheet").name
    assert (meta["size"]["w"], meta["size"]["h"]) == (sheet.shape[1], sheet.shape[0])
    assert meta["fps"] == pytest.approx(COUNT / 2)
    assert meta["frameTags"][0] == {
        "name": "hero",
        "from": 0,
        "to": COUNT - 1,
        "direction": "forward",
    }
    # Keyed by index: Phaser's createFromAseprite looks frames up as frames[String(i)].
    assert list(doc["frames"]) == [str(i) for i in range(COUNT)]
    # Pixi reads the animation from a top-level "animations".
    assert doc["animations"] == {"hero": [str(i) for i in range(COUNT)]}
    assert meta["app"].startswith("http://www.codeandweb.com/texturepacker")
    frames = zip_pngs(one(exported, "frames_zip"))
    total = 0
    for name, entry in doc["frames"].items():
        r = entry["frame"]
        region = sheet[r["y"] : r["y"] + r["h"], r["x"] : r["x"] + r["w"]]
        assert np.array_equal(region, frames[f"hero_{int(name):04d}.png"]), name
        assert entry["pivot"] == {"x": 0.5, "y": 1.0} and entry["rotated"] is False
        total += entry["duration"]
    assert total == 2000


def test_unity_meta_slices_from_the_bottom(exported: ExportResult) -> None:
    sheet_path = one(exported, "spritesheet")
    meta_path = one(exported, "unity_meta")
    assert meta_path.name == sheet_path.name + ".meta"
    meta = yaml.safe_load(meta_path.read_text())
    assert meta["fileFormatVersion"] == 2 and re.fullmatch(r"[0-9a-f]{32}", meta["guid"])
    importer = meta["TextureImporter"]
    assert importer["textureType"] == 8 and importer["spriteMode"] == 2
    assert importer["alphaIsTransparency"] == 1 and importer["mipmaps"]["enableMipMap"] == 0
    assert importer["spritePixelsToUnits"] == 100
    sprites = importer["spriteSheet"]["sprites"]
    doc = json.loads(one(exported, "spritesheet_json").read_text())
    sheet_h = doc["meta"]["size"]["h"]
    assert len(sprites) == COUNT
    for index, sprite in enumerate(sprites):
        assert sprite["name"] == f"hero_{index:04d}"
        frame = doc["frames"][str(index)]["frame"]
        assert sprite["rect"]["x"] == frame["x"]
        assert sprite["rect"]["y"] == sheet_h - frame["y"] - frame["h"]
        assert sprite["alignment"] == 7 and sprite["pivot"] == {"x": 0.5, "y": 0}
    ids = [s["internalID"] for s in sprites]
    assert len(set(ids)) == COUNT and all(0 < i < 2**63 for i in ids)


def test_unity_pack_is_a_unitypackage(exported: ExportResult, tmp_path: Path) -> None:
    with tarfile.open(one(exported, "unity_pack"), "r:gz") as archive:
        names = archive.getnames()
        folders = {n.split("/")[0] for n in names}
        entries = {g: {n.split("/", 1)[1] for n in names if n.startswith(g + "/")} for g in folders}
        by_path = {}
        for guid, files in entries.items():
            assert files == {"asset", "asset.meta", "pathname"}, files
            pathname = archive.extractfile(f"{guid}/pathname").read().decode()  # type: ignore[union-attr]
            assert pathname.startswith("Assets/") and "\n" not in pathname
            meta = yaml.safe_load(archive.extractfile(f"{guid}/asset.meta").read())  # type: ignore[union-attr]
            assert meta["guid"] == guid
            by_path[pathname] = (guid, archive.extractfile(f"{guid}/asset").read(), meta)  # type: ignore[union-attr]
    assert set(by_path) == {"Assets/Animations/hero/hero.png", "Assets/Animations/hero/hero.anim"}
    tex_guid, png, tex_meta = by_path["Assets/Animations/hero/hero.png"]
    assert png.startswith(b"\x89PNG")
    sprite_ids = {s["internalID"] for s in tex_meta["TextureImporter"]["spriteSheet"]["sprites"]}
    _, anim, _ = by_path["Assets/Animations/hero/hero.anim"]
    (tmp_path / "hero.anim").write_bytes(anim)
    # unityparser reads Unity's YAML dialect as Unity writes it; scalars come back as text.
    clip = UnityDocument.load_yaml(str(tmp_path / "hero.anim")).entry
    assert type(clip).__name__ == "AnimationClip"
    curve = clip.m_PPtrCurves[0]
    assert curve["attribute"] == "m_Sprite" and int(curve["classID"]) == 212
    keys = curve["curve"]
    assert len(keys) == COUNT
    assert all(
        k["value"]["guid"] == tex_guid and int(k["value"]["fileID"]) in sprite_ids for k in keys
    )
    assert [float(k["time"]) for k in keys] == pytest.approx(
        [i * 2 / COUNT for i in range(COUNT)], abs=1e-4
    )
    assert float(clip.m_SampleRate) == COUNT / 2
    assert float(clip.m_AnimationClipSettings["m_StopTime"]) == pytest.approx(2.0)
    assert int(clip.m_AnimationClipSettings["m_LoopTime"]) == 1


TRES_EXT = re.compile(r'\[ext_resource type="Texture2D" path="([^"]+)" id="([^"]+)"\]')
TRES_SUB = re.compile(
    r'\[sub_resource type="AtlasTexture" id="([^"]+)"\]\natlas = ExtResource\("([^"]+)"\)\n'
    r"region = Rect2\((\d+), (\d+), (\d+), (\d+)\)"
)


def test_godot_pack_sprite_frames(exported: ExportResult) -> None:
    with zipfile.ZipFile(one(exported, "godot_pack")) as archive:
        names = set(archive.namelist())
        tres = archive.read("hero.tres").decode()
    assert names == {"hero.png", "hero.tres"}
    assert tres.startswith('[gd_resource type="SpriteFrames" load_steps=')
    assert "format=3]" in tres.splitlines()[0]
    ext = TRES_EXT.findall(tres)
    assert ext == [("hero.png", "1_sheet")]  # beside the .tres, wherever it is extracted
    subs = TRES_SUB.findall(tres)
    assert len(subs) == COUNT and all(s[1] == "1_sheet" for s in subs)
    assert tres.count("filter_clip = true") == COUNT
    doc = json.loads(one(exported, "spritesheet_json").read_text())
    rects = [tuple(map(int, s[2:])) for s in subs]
    assert rects == [
        (f["frame"]["x"], f["frame"]["y"], f["frame"]["w"], f["frame"]["h"])
        for f in doc["frames"].values()
    ]
    resource = tres.split("[resource]")[1]
    for key in ('"frames"', '"loop": true', '"name": &"hero"', '"speed": 6.0'):
        assert key in resource
    assert resource.count('"duration": 1.0') == COUNT
    used = re.findall(r'SubResource\("([^"]+)"\)', resource)
    assert used == [s[0] for s in subs]


def test_unreal_pack(exported: ExportResult) -> None:
    with zipfile.ZipFile(one(exported, "unreal_paper2d_pack")) as archive:
        names = set(archive.namelist())
        sheet = json.loads(archive.read("hero.paper2dsprites"))
        flipbook = json.loads(archive.read("hero.flipbook"))
    assert names == {"hero.png", "hero.paper2dsprites", "hero.flipbook"}
    assert sheet["meta"]["image"] in names
    # Unreal's importer warns on every import unless app starts with TexturePacker's URL
    # (PaperJsonSpriteSheetImporter.cpp, ParseMetaBlock).
    assert sheet["meta"]["app"].startswith("http://www.codeandweb.com/texturepacker")
    assert len(sheet["frames"]) == COUNT
    assert flipbook["fps"] == pytest.approx(6.0) and len(flipbook["frames"]) == COUNT
    # Paper2D names a sprite after its key with '.' sanitised to '_': the keys must be
    # exactly the names the flipbook lists.
    sprite_names = [re.sub(r"[^A-Za-z0-9_-]", "_", key) for key in sheet["frames"]]
    assert sprite_names == [f["name"] for f in flipbook["frames"]]
    assert sprite_names == [f"hero_{i:04d}" for i in range(COUNT)]


def test_cocos_pack_plist(exported: ExportResult) -> None:
    with zipfile.ZipFile(one(exported, "cocos_creator_pack")) as archive:
        names = set(archive.namelist())
        plist = plistlib.loads(archive.read("hero.plist"))
    assert {"hero.png", "hero.plist"} <= names
    assert plist["metadata"]["format"] == 3 and plist["metadata"]["textureFileName"] in names
    doc = json.loads(one(exported, "spritesheet_json").read_text())
    assert list(plist["frames"]) == [f"hero_{i:04d}.png" for i in range(COUNT)]
    for index, frame in enumerate(plist["frames"].values()):
        x, y, w, h = map(int, re.findall(r"-?\d+", frame["textureRect"]))
        f = doc["frames"][str(index)]["frame"]
        assert (x, y, w, h) == (f["x"], f["y"], f["w"], f["h"])
        assert frame["textureRotated"] is False


def test_construct3_pack_frames_at_root(exported: ExportResult) -> None:
    path = one(exported, "construct3_pack")
    # Named for its engine, and not a byte-for-byte copy of the frames zip beside it.
    assert path.name == "hero_construct3.zip"
    assert path.read_bytes() != one(exported, "frames_zip").read_bytes()
    frames = zip_pngs(path)
    assert sorted(frames) == [f"hero_{i:04d}.png" for i in range(COUNT)]
    assert all("/" not in n for n in frames)
    with zipfile.ZipFile(path) as archive:
        comment = archive.comment.decode()
    assert "Speed to 6 " in comment, comment  # 12 frames over 2 s
