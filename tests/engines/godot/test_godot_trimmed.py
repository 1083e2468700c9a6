"""A trimmed sheet in a real Godot 4: each frame loads at the whole frame's size and
draws exactly the untrimmed frame's pixels at the same place, so nothing jitters."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from companion.media import ExportSpec, export_video
from tests.support.godot import game
from tests.support.motion_clips import SIDE, settling_frames, write_clip
from tests.support.paths import SUPPORT
from tests.support.real_godot import Godot, real_godot  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.godot, pytest.mark.slow]
SCRIPT = SUPPORT / "godot" / "trimmed.gd"


def test_godot_draws_trimmed_frames_where_the_whole_ones_were(
    real_godot: Godot,  # noqa: F811
    tmp_path: Path,
) -> None:
    clip = write_clip(tmp_path / "settling.mov", settling_frames())
    project = game(tmp_path / "game", harness=False)
    sizes = {}
    for folder, trim in (("plain", False), ("trimmed", True)):
        spec = ExportSpec(
            ("godot_pack",), frame_count=None, fps=24, width=SIDE, height=SIDE, name=folder,
            trim=trim, padding=2, extrude=1,
        )  # fmt: skip
        pack = export_video(clip, tmp_path / folder, spec).paths("godot_pack")[0]
        with zipfile.ZipFile(pack) as archive:
            archive.extractall(project / folder)
        sizes[folder] = (project / folder / f"{folder}.png").stat().st_size
    assert sizes["trimmed"] < sizes["plain"]
    home = tmp_path / "godot-home"
    imported = real_godot.run(home, "--headless", "--import", "--path", str(project))
    assert imported.returncode == 0, imported.stderr[-2000:]
    (project / "trimmed.gd").write_text(SCRIPT.read_text())
    result = tmp_path / "trimmed.json"
    ran = real_godot.run(
        home, "--headless", "--path", str(project), "-s", "res://trimmed.gd", "--",
        str(result), "res://trimmed/trimmed.tres", "res://plain/plain.tres",
    )  # fmt: skip
    assert ran.returncode == 0 and result.is_file(), ran.stdout[-2000:] + ran.stderr[-2000:]
    errors = [line for line in ran.stderr.splitlines() if "ERROR" in line]
    assert not errors, "\n".join(errors)
    found = json.loads(result.read_text())
    assert found["loaded"] and found["count"] == [42, 42], found
    for index, frame in enumerate(found["frames"]):
        assert frame["size"] == frame["plain_size"] == [SIDE, SIDE], (index, frame)
        assert frame["same_pixels"], (index, frame)
    # The regions really were cut: every one smaller than the whole frame.
    assert all(f["region"][0] < SIDE and f["region"][1] < SIDE for f in found["frames"])
