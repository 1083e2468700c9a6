from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest
from PIL import Image

from companion.media import probe
from companion.media.demo_art import draw_character
from companion.media.preview import build_contact_sheet
from companion.media.synth import MOTIONS, SynthSpec, choose_motion, synthesize


def frames_of(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [f.to_ndarray(format="rgb24").astype(np.int16) for f in container.decode(video=0)]


@pytest.mark.parametrize(
    "prompt,motion",
    [
        ("idle breathing", "breathe"),
        ("a knight walking right", "walk"),
        ("tree swaying in the wind", "sway"),
        ("hovering drone", "bob"),
        ("glowing orb", "pulse"),
    ],
)
def test_motion_follows_the_prompt(prompt: str, motion: str) -> None:
    assert choose_motion(prompt, 0, False) == motion
    assert choose_motion(prompt, 0, True) == "morph"


def test_unknown_prompts_pick_deterministically_from_the_seed() -> None:
    picks = {choose_motion("a mysterious thing", seed, False) for seed in range(40)}
    assert len(picks) > 2 and picks <= set(MOTIONS) - {"morph"}
    assert choose_motion("a mysterious thing", 7, False) == choose_motion(
        "a mysterious thing", 7, False
    )


@pytest.mark.parametrize("prompt", ["idle breathing", "walk cycle", "sway", "bob", "pulse"])
def test_synthesized_video_moves_and_loops(tmp_path: Path, prompt: str) -> None:
    out = tmp_path / "gen.mp4"
    synthesize(
        draw_character(128),
        out,
        SynthSpec(prompt=prompt, duration=1.0, fps=12, width=128, height=128, seed=3),
    )
    info = probe(out)
    assert (info.width, info.height, info.frame_count) == (128, 128, 12)
    assert info.duration == pytest.approx(1.0, abs=0.01)
    frames = frames_of(out)
    motion = max(np.abs(f - frames[0]).mean() for f in frames)
    assert motion > 0.5, "no visible motion"
    # Whole cycles: the frame after the last would be the first again.
    loop_gap = np.abs(frames[-1] - frames[0]).mean()
    assert loop_gap < motion


def test_same_request_same_video(tmp_path: Path) -> None:
    spec = SynthSpec(prompt="something", duration=0.5, fps=8, width=64, height=64, seed=9)
    synthesize(draw_character(64), tmp_path / "a.mp4", spec)
    synthesize(draw_character(64), tmp_path / "b.mp4", spec)
    # The same pictures go to the encoder every time; x264 on a busy machine may still
    # spend its bits a little differently (seen: 0.1 of 255 on average, against 10 for
    # another seed), so the frames must agree to well under one level, not to the bit.
    pairs = zip(frames_of(tmp_path / "a.mp4"), frames_of(tmp_path / "b.mp4"), strict=True)
    assert max(np.abs(a - b).mean() for a, b in pairs) < 1.0


def test_morph_goes_from_first_to_last_frame(tmp_path: Path) -> None:
    first = Image.new("RGBA", (64, 64), (230, 30, 30, 255))
    last = Image.new("RGBA", (64, 64), (30, 30, 230, 255))
    out = tmp_path / "m.mp4"
    assert (
        synthesize(first, out, SynthSpec(duration=1, fps=10, width=64, height=64), last) == "morph"
    )
    frames = frames_of(out)
    centre = [f[32, 32] for f in frames]
    assert centre[0][0] > 180 and centre[0][2] < 80
    assert centre[-1][2] > 180 and centre[-1][0] < 80


def test_key_colour_background(tmp_path: Path) -> None:
    out = tmp_path / "k.mp4"
    synthesize(
        draw_character(64),
        out,
        SynthSpec(duration=0.5, fps=8, width=64, height=64, key_color=(0, 255, 0)),
    )
    corner = frames_of(out)[0][1, 1]
    assert corner[1] > 230 and corner[0] < 30 and corner[2] < 30


def test_contact_sheet_cells_in_request_order(index_video: Path, tmp_path: Path) -> None:
    requested = [1.5, 0.0, 0.76, 1.99]
    sheet = build_contact_sheet(index_video, tmp_path / "p.png", requested, max_frame_size=100)
    assert [c.index for c in sheet.cells] == [0, 1, 2, 3]
    assert [c.requested_time for c in sheet.cells] == requested
    # The frame actually shown: the last one starting at or before the instant (24 fps).
    assert [c.source_time for c in sheet.cells] == pytest.approx([36 / 24, 0.0, 18 / 24, 47 / 24])
    image = np.asarray(Image.open(sheet.path).convert("RGB"))
    assert image.shape[:2] == (sheet.height, sheet.width)
    for cell in sheet.cells:
        assert max(cell.width, cell.height) <= 100 and (cell.width, cell.height) == (100, 75)
        thumb = image[cell.y : cell.y + cell.height, cell.x : cell.x + cell.width]
        red = (thumb[..., 0] > 150) & (thumb[..., 1] < 100)
        left = np.flatnonzero(red.any(axis=0))[0] / (100 / 320)
        assert round((left - 20) / 5) == round(cell.source_time * 24)


def test_contact_sheet_rejects_times_past_the_end(index_video: Path, tmp_path: Path) -> None:
    from companion.media import MediaError

    with pytest.raises(MediaError, match="outside"):
        build_contact_sheet(index_video, tmp_path / "p.png", [2.0])
