"""Pixel art read from its picture and kept so: the grid and palette found, palette files
read, and frames of a real synthesized clip (blurred, resampled, on a key colour) brought
back onto the art's grid and palette, read pixel by pixel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from companion.media import ExportSpec, MediaError, export_video
from companion.media.demo_art import draw_character
from companion.media.pixel.art import PixelArt, read_art, rim
from companion.media.pixel.oklab import oklab
from companion.media.pixel.palette import nearest_table, palette_from_hex, read_palette, table_index
from companion.media.synth import SynthSpec, synthesize
from tests.support.media import zip_frames
from tests.support.pixel_art import (
    COLOURS,
    EYE,
    OUTLINE,
    draw_pixel_character,
    eyes,
    iou,
    off_palette,
)

KEY = (0, 0, 255)


@pytest.mark.parametrize(("size", "grid"), [(16, 1), (32, 1), (64, 1), (128, 4), (96, 3)])
def test_the_grid_and_palette_are_read_from_the_picture(size: int, grid: int) -> None:
    art = read_art(np.asarray(draw_pixel_character(size, grid)))
    assert art is not None
    assert art.grid == grid and sorted(art.palette) == sorted(COLOURS)
    assert art.size == (size, size)
    assert art.box is not None and all(v % grid == 0 for v in art.box)


def test_a_painted_picture_or_soft_alpha_is_not_pixel_art() -> None:
    painted = draw_character(256).resize((200, 200), Image.Resampling.LANCZOS)
    assert read_art(np.asarray(painted)) is None
    soft = np.asarray(draw_pixel_character(32)).copy()
    soft[0, 0] = (10, 10, 10, 128)
    assert read_art(soft) is None


def test_palette_files_gpl_hex_and_swatch(tmp_path: Path) -> None:
    gpl = tmp_path / "p.gpl"
    gpl.write_text("GIMP Palette\nName: four\nColumns: 4\n# a comment\n"
                   "  0   0   0\tBlack\n255 255 255 White\n 200 40 40 Red\n")  # fmt: skip
    assert read_palette(gpl.read_bytes(), str(gpl)) == ((0, 0, 0), (255, 255, 255), (200, 40, 40))
    hexed = tmp_path / "p.hex"
    hexed.write_text("000000\n#ffffff\nFFc82828\n")
    assert read_palette(hexed.read_bytes(), "p.hex") == (
        (0, 0, 0),
        (255, 255, 255),
        (200, 40, 40),
    )
    swatch = np.zeros((1, 4, 4), dtype=np.uint8)
    swatch[0, :3] = [(0, 0, 0, 255), (255, 255, 255, 255), (0, 0, 0, 255)]
    Image.fromarray(swatch, "RGBA").save(tmp_path / "s.png")
    assert read_palette((tmp_path / "s.png").read_bytes(), "s.png") == ((0, 0, 0), (255, 255, 255))
    bad = tmp_path / "bad.gpl"
    bad.write_text("GIMP Palette\n1 2 three\n")
    with pytest.raises(MediaError, match=r"bad\.gpl: line 2"):
        read_palette(bad.read_bytes(), str(bad))
    with pytest.raises(MediaError, match="not a colour"):
        palette_from_hex(["#12345"])


def test_the_nearest_table_is_the_nearest_in_oklab() -> None:
    palette = ((0, 0, 0), (255, 255, 255), (200, 40, 40), (40, 200, 40), (30, 30, 200))
    table = nearest_table(palette)
    rng = np.random.default_rng(7)
    # Cell centres, where the table is exact: colours 2 levels off the palette's own
    # are indexed by their cell's centre.
    colours = (rng.integers(0, 64, (500, 3)) * 4 + 1).astype(np.uint8)
    got = table[table_index(colours)]
    distance = ((oklab(colours)[:, None] - oklab(np.array(palette))[None]) ** 2).sum(-1)
    assert (got == distance.argmin(axis=1)).mean() > 0.99
    assert (table[table_index(np.array(palette, dtype=np.uint8))] == np.arange(5)).all()


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[int, int], Path]:
    """A short idle clip of each picture, as the sandbox makes it (360 px, keyed)."""
    folder = tmp_path_factory.mktemp("pixel-clips")
    made = {}
    for size, grid in ((16, 1), (64, 1), (128, 4)):
        path = folder / f"c{size}.mp4"
        idle = SynthSpec(prompt="idle", duration=1.0, width=360, height=360, key_color=KEY)
        synthesize(draw_pixel_character(size, grid), path, idle)
        made[(size, grid)] = path
    return made


@pytest.mark.parametrize(("size", "grid"), [(16, 1), (64, 1), (128, 4)])
def test_frames_are_the_arts_palette_grid_and_silhouette(
    clips: dict[tuple[int, int], Path], tmp_path: Path, size: int, grid: int
) -> None:
    picture = np.asarray(draw_pixel_character(size, grid))
    art = read_art(picture)
    assert art is not None
    spec = ExportSpec(formats=("frames_zip",), frame_count=6, width=size, height=size,
                      key_color=KEY, pixel_art=True, pixel=art, name="px")  # fmt: skip
    frames = zip_frames(export_video(clips[(size, grid)], tmp_path, spec).paths("frames_zip")[0])
    for frame in frames:
        assert frame.shape == picture.shape
        assert set(np.unique(frame[..., 3])) <= {0, 255}
        assert off_palette(frame, art.palette) == 0
        blocks = frame.reshape(size // grid, grid, size // grid, grid, 4)
        assert (blocks == blocks[:, :1, :, :1]).all(), "every art pixel one block"
    first = frames[0]
    assert iou(first[..., 3] > 0, picture[..., 3] > 0) >= 0.9
    for x, y in eyes(size // grid):
        assert tuple(first[y * grid, x * grid, :3]) == EYE


@pytest.mark.parametrize(("size", "grid"), [(16, 1), (64, 1), (128, 4)])
def test_an_outlined_art_keeps_its_outline_on_every_frame(
    clips: dict[tuple[int, int], Path], tmp_path: Path, size: int, grid: int
) -> None:
    """The clip breathes (the character a little bigger than the picture), its blur
    smears the 1-pixel outline: every frame's rim is the outline all the same."""
    art = read_art(np.asarray(draw_pixel_character(size, grid)))
    assert art is not None and art.outline == OUTLINE
    spec = ExportSpec(formats=("frames_zip",), frame_count=6, width=size, height=size,
                      key_color=KEY, pixel_art=True, pixel=art, name="ol")  # fmt: skip
    frames = zip_frames(export_video(clips[(size, grid)], tmp_path, spec).paths("frames_zip")[0])
    for frame in frames:
        cells = frame[::grid, ::grid]
        edge = cells[rim(cells[..., 3] == 255)]
        assert len(edge) and (edge[:, :3] == OUTLINE).all()


@pytest.mark.parametrize(("size", "grid"), [(16, 1), (64, 1), (128, 4)])
def test_the_eyes_one_pixel_each_are_in_every_frame(
    clips: dict[tuple[int, int], Path], tmp_path: Path, size: int, grid: int
) -> None:
    """The clip's blur lays a 1-pixel eye across two blocks, so neither block is mostly
    eye: the art's small features are kept where the clip shows them, in one block."""
    art = read_art(np.asarray(draw_pixel_character(size, grid)))
    assert art is not None and EYE in art.features and OUTLINE not in art.features
    spec = ExportSpec(formats=("frames_zip",), frame_count=12, width=size, height=size,
                      key_color=KEY, pixel_art=True, pixel=art, name="eyes")  # fmt: skip
    frames = zip_frames(export_video(clips[(size, grid)], tmp_path, spec).paths("frames_zip")[0])
    middle = size // grid // 2
    seen = []
    for frame in frames:
        cells = frame[::grid, ::grid]
        eye = np.all(cells[..., :3] == EYE, axis=-1) & (cells[..., 3] > 0)
        seen.append((int(eye[:, :middle].sum()), int(eye[:, middle:].sum())))
    # Never more than a pixel or two an eye (the clip stretches the face a little), and
    # both eyes in all but one frame at most (left to the nearest colour alone, a 64 px
    # creature keeps them in 4 frames of these 12).
    assert all(left <= 2 and right <= 2 for left, right in seen), seen
    assert sum(left >= 1 and right >= 1 for left, right in seen) >= len(frames) - 1, seen


def test_an_art_without_one_rim_colour_has_no_outline() -> None:
    art = read_art(np.asarray(draw_character(64)))
    assert art is not None and art.outline is None


def test_a_named_palette_is_the_only_one_used(
    clips: dict[tuple[int, int], Path], tmp_path: Path
) -> None:
    art = read_art(np.asarray(draw_pixel_character(64)))
    assert art is not None
    # Sweetie 16: many colours near the art's, among which the clip's blends would land.
    named = palette_from_hex(
        [
            "1a1c2c",
            "5d275d",
            "b13e53",
            "ef7d57",
            "ffcd75",
            "a7f070",
            "38b764",
            "257179",
            "29366f",
            "3b5dc9",
            "41a6f6",
            "73eff7",
            "f4f4f4",
            "94b0c2",
            "566c86",
            "333c57",
        ]
    )
    art = art.with_palette(named)
    spec = ExportSpec(formats=("frames_zip",), frame_count=3, width=64, height=64,
                      key_color=KEY, pixel_art=True, pixel=art, name="p")  # fmt: skip
    frames = zip_frames(export_video(clips[(64, 1)], tmp_path, spec).paths("frames_zip")[0])
    assert all(off_palette(f, named) == 0 for f in frames)
    # A recolouring, one colour for one: each of the art's five is drawn in the named
    # colour nearest it, and no other (the clip's blends are read in the art's own).
    drawn = set(art.drawn)
    assert drawn <= set(named) and len(drawn) >= 3
    assert {tuple(c) for f in frames for c in f[f[..., 3] > 0][:, :3]} == drawn
    assert art.drawn[art.palette.index(EYE)] == (26, 28, 44)  # the darkest named: the eyes


def test_the_facts_travel_as_json() -> None:
    art = read_art(np.asarray(draw_pixel_character(128, 4)))
    assert art is not None
    assert PixelArt.of_json(art.as_json()) == art
    with pytest.raises(MediaError, match="pixel"):
        PixelArt.of_json({"grid": 2})
