"""A pixel-art export's Unity textures, read with unityparser (a Unity YAML reader that
is not ours): point filtering, uncompressed, no mipmaps, and 16 art pixels a unit
whatever size the art is drawn at (art drawn 4 times bigger: 64 pixels a unit), unless
another pixels per unit was asked; the same when the metas are built at the install
from the sheet and its JSON. Smooth art's textures stay as they were."""

from __future__ import annotations

import tarfile
from pathlib import Path
from typing import Any

import pytest
from unityparser import UnityDocument

from companion.media import ExportResult, ExportSpec, export_video
from tests.support.install import install, staged, unity_project
from tests.support.pixel_art import SCALE, SIDE, write_art_clip

FORMATS = ("spritesheet", "spritesheet_json", "unity_meta", "unity_pack")


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_art_clip(tmp_path_factory.mktemp("pixel") / "art.mov", 4)


def _export(clip: Path, out: Path, **given: Any) -> ExportResult:
    spec = ExportSpec(formats=FORMATS, frame_count=4, width=SIDE, height=SIDE, name="hero", **given)
    return export_video(clip, out, spec)


def _importer(meta: Path) -> Any:
    document = UnityDocument.load_yaml(str(meta)).entry
    return document["TextureImporter"]


def _settings(importer: Any) -> dict[str, Any]:
    return {
        "filter": int(importer["textureSettings"]["filterMode"]),
        "mipmaps": int(importer["mipmaps"]["enableMipMap"]),
        "compression": [int(p["textureCompression"]) for p in importer["platformSettings"]],
        "per_unit": float(importer["spritePixelsToUnits"]),
    }


POINT = {"filter": 0, "mipmaps": 0, "compression": [0], "per_unit": 16.0 * SCALE}


def test_pixel_art_textures_are_point_filtered_at_art_pixels_a_unit(
    clip: Path, tmp_path: Path
) -> None:
    made = _export(clip, tmp_path / "pixel", pixel_art=True)
    assert _settings(_importer(made.paths("unity_meta")[0])) == POINT
    with tarfile.open(made.paths("unity_pack")[0]) as pack:
        pack.extractall(tmp_path / "unpacked", filter="data")
    texture = next(
        folder
        for folder in (tmp_path / "unpacked").iterdir()
        if (folder / "pathname").read_text().endswith(".png")
    )
    assert _settings(_importer(texture / "asset.meta")) == POINT
    # Built at the install from the sheet and its JSON (no pack was returned).
    project = unity_project(tmp_path / "game")
    outputs = staged(made, tmp_path / "downloads", "spritesheet", "spritesheet_json")
    install("unity", project, "Assets/Art", outputs, FORMATS, pixel_art=True)
    assert _settings(_importer(project / "Assets/Art/hero.png.meta")) == POINT
    # The sheet alone, no pack asked: its meta still says point, uncompressed, no mipmaps.
    alone = staged(made, tmp_path / "alone", "spritesheet")
    install("unity", project, "Assets/Loose", alone, ("spritesheet",), pixel_art=True)
    loose = _importer(project / "Assets/Loose/hero.png.meta")
    assert int(loose["textureSettings"]["filterMode"]) == 0
    assert int(loose["mipmaps"]["enableMipMap"]) == 0
    assert [int(p["textureCompression"]) for p in loose["platformSettings"]] == [0]


def test_asked_units_and_smooth_art_stay_as_asked(clip: Path, tmp_path: Path) -> None:
    asked = _export(clip, tmp_path / "asked", pixel_art=True, pixels_per_unit=32.0)
    assert _settings(_importer(asked.paths("unity_meta")[0])) == {**POINT, "per_unit": 32.0}
    smooth = _export(clip, tmp_path / "smooth")
    assert _settings(_importer(smooth.paths("unity_meta")[0])) == {
        **POINT, "filter": 1, "per_unit": 100.0
    }  # fmt: skip
    # A loose smooth sheet keeps the bare meta: Unity's own defaults.
    project = unity_project(tmp_path / "game")
    alone = staged(smooth, tmp_path / "alone", "spritesheet")
    install("unity", project, "Assets/Loose", alone, ("spritesheet",))
    assert set(_importer(project / "Assets/Loose/hero.png.meta")) == {
        "externalObjects", "userData", "assetBundleName", "assetBundleVariant"
    }  # fmt: skip
