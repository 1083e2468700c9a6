"""Unity guids come from the animation's name and where it lands: the same place keeps
them across re-exports and re-installs, another folder never collides. Metas and clips are
read with unityparser, a Unity YAML reader that is not ours (it understands the
`%TAG !u!` header and `--- !u!74 &7400000` documents)."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from unityparser import UnityDocument

from companion.media import ExportResult, ExportSpec, export_video
from tests.support.install import install, staged, unity_project


def _export(index_video: Path, out: Path, unity_dir: str = "Assets/Animations") -> ExportResult:
    spec = ExportSpec(
        formats=("spritesheet", "spritesheet_json", "unity_meta", "unity_pack"),
        frame_count=4,
        width=64,
        height=64,
        name="hero",
        unity_dir=unity_dir,
    )
    return export_video(index_video, out, spec)


def pack_guids(result: ExportResult, into: Path) -> dict[str, str]:
    """pathname -> guid, after checking each asset.meta and the clip with unityparser."""
    with tarfile.open(result.paths("unity_pack")[0]) as archive:
        archive.extractall(into, filter="data")
    found: dict[str, str] = {}
    for folder in into.iterdir():
        meta = UnityDocument.load_yaml(str(folder / "asset.meta")).entry
        assert meta["guid"] == folder.name
        found[(folder / "pathname").read_text()] = folder.name
    clip_path = next(p for p in found if p.endswith(".anim"))
    clip = UnityDocument.load_yaml(str(into / found[clip_path] / "asset")).entry
    assert type(clip).__name__ == "AnimationClip" and clip.anchor == "7400000"
    texture = found[clip_path.rsplit("/", 1)[0] + "/hero.png"]
    keys = clip.m_PPtrCurves[0]["curve"]
    assert len(keys) == 4 and all(k["value"]["guid"] == texture for k in keys)
    return found


def test_pack_guids_follow_the_landing_folder(index_video: Path, tmp_path: Path) -> None:
    first = pack_guids(_export(index_video, tmp_path / "a1"), tmp_path / "p1")
    again = pack_guids(_export(index_video, tmp_path / "a2"), tmp_path / "p2")
    elsewhere = pack_guids(_export(index_video, tmp_path / "b", "Assets/Enemies"), tmp_path / "p3")
    assert first == again  # re-exporting to the same place keeps every guid
    assert set(first) == {"Assets/Animations/hero/hero.png", "Assets/Animations/hero/hero.anim"}
    assert not set(first.values()) & set(elsewhere.values())  # another folder: no collision
    # The loose texture meta carries the guid the pack gives the same texture.
    loose = UnityDocument.load_yaml(str(tmp_path / "a1" / "hero.png.meta")).entry
    assert loose["guid"] == first["Assets/Animations/hero/hero.png"]


def _project_guids(project: Path, folder: str) -> dict[str, str]:
    return {
        meta.name: UnityDocument.load_yaml(str(meta)).entry["guid"]
        for meta in sorted((project / folder).glob("*.meta"))
    }


@pytest.mark.parametrize(
    "formats", [("spritesheet", "unity_pack"), ("spritesheet", "spritesheet_json")]
)
def test_installs_keep_guids_per_place(
    index_video: Path, tmp_path: Path, formats: tuple[str, ...]
) -> None:
    """With the pack (its guids clash with the first install's in the second folder) and
    without it (built here from the sheet): each folder keeps its own guids when the same
    animation is installed there again."""
    result = _export(index_video, tmp_path / "export")
    project = unity_project(tmp_path / "game")
    wanted = (*formats, "unity_pack")
    install("unity", project, "Assets/A", staged(result, tmp_path / "d1", *formats), wanted)
    install("unity", project, "Assets/B", staged(result, tmp_path / "d2", *formats), wanted)
    a, b = _project_guids(project, "Assets/A"), _project_guids(project, "Assets/B")
    assert set(a) == set(b) and "hero.anim.meta" in a and "hero.png.meta" in a
    assert not set(a.values()) & set(b.values())
    install("unity", project, "Assets/B", staged(result, tmp_path / "d3", *formats), wanted)
    assert _project_guids(project, "Assets/B") == b
    install("unity", project, "Assets/A", staged(result, tmp_path / "d4", *formats), wanted)
    assert _project_guids(project, "Assets/A") == a
