"""Pixel art keeps its colours in every file made of it: the sheets (with gaps and
repeated edges, or trimmed), the sheets inside the engine packs, and the GIF (read back
with Pillow: each frame's pixels exactly the frame's, one index for transparency)."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageSequence

from companion.media import ExportResult, ExportSpec, export_video
from companion.media.formats.gif import TRANSPARENT
from tests.support.media import zip_frames
from tests.support.pixel_art import SIDE, art_frame, colours, png_colours, write_art_clip

FRAMES = 8
FORMATS = ("gif", "frames_zip", "spritesheet", "spritesheet_json", "godot_pack", "unity_pack")


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_art_clip(tmp_path_factory.mktemp("pixel") / "art.mov", FRAMES)


def _export(clip: Path, out: Path, **given: object) -> ExportResult:
    spec = ExportSpec(
        formats=FORMATS, frame_count=FRAMES, width=SIDE, height=SIDE, pixel_art=True,
        name="slime", **given,  # type: ignore[arg-type]
    )  # fmt: skip
    return export_video(clip, out, spec)


@pytest.fixture(scope="module", params=["spaced", "trimmed"])
def exported(
    request: pytest.FixtureRequest, clip: Path, tmp_path_factory: pytest.TempPathFactory
) -> ExportResult:
    """Gaps and repeated edges between the frames, or frames cut to their pixels."""
    given = {"padding": 2, "extrude": 1}
    if request.param == "trimmed":
        given["trim"] = True  # type: ignore[assignment]
    return _export(clip, tmp_path_factory.mktemp(request.param), **given)


def _frame_colours() -> set[tuple[int, ...]]:
    return set().union(*(colours(art_frame(i)) for i in range(FRAMES)))


def test_the_frames_are_the_art(exported: ExportResult) -> None:
    frames = zip_frames(exported.paths("frames_zip")[0])
    assert len(frames) == FRAMES
    for index, frame in enumerate(frames):
        assert np.array_equal(frame, art_frame(index)), index


def test_every_sheet_holds_the_frames_colours_and_no_other(exported: ExportResult) -> None:
    want = _frame_colours()
    sheets = exported.paths("spritesheet")
    assert sheets and all(png_colours(sheet) == want for sheet in sheets)
    with zipfile.ZipFile(exported.paths("godot_pack")[0]) as pack:
        pages = [n for n in pack.namelist() if n.endswith(".png")]
        assert pages
        for name in pages:
            assert (
                colours(np.asarray(Image.open(io.BytesIO(pack.read(name))).convert("RGBA"))) == want
            )
    with tarfile.open(exported.paths("unity_pack")[0]) as pack:
        assets = [m for m in pack.getmembers() if m.name.endswith("/asset")]
        textures = []
        for member in assets:
            data = pack.extractfile(member)
            assert data is not None
            payload = data.read()
            if payload.startswith(b"\x89PNG"):
                textures.append(
                    colours(np.asarray(Image.open(io.BytesIO(payload)).convert("RGBA")))
                )
        assert textures and all(found == want for found in textures)


def test_the_gif_is_the_frames_exactly(exported: ExportResult) -> None:
    with Image.open(exported.paths("gif")[0]) as gif:
        assert gif.info.get("transparency") == TRANSPARENT  # one index for clear
        shown = []
        for frame in ImageSequence.Iterator(gif):
            if frame.mode == "P":
                used = set(np.unique(np.asarray(frame)).tolist())
                # Clear is that index alone: no colour of the art was given it.
                visible = np.asarray(frame) != TRANSPARENT
                assert visible.any() and TRANSPARENT in used
            shown.append(np.asarray(frame.convert("RGBA")))
    assert len(shown) == FRAMES
    for index, decoded in enumerate(shown):
        art = art_frame(index)
        clear = art[..., 3] == 0
        assert np.array_equal(decoded[..., 3] == 0, clear), index
        assert np.array_equal(decoded[~clear], art[~clear]), index  # not one colour drifted
        assert colours(decoded) <= colours(art), index
