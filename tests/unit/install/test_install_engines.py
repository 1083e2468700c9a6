"""Engine-aware installs: what lands in a Godot or Unity project is what the engine needs,
whatever pack the service returned, or none."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any, cast

import pytest
import yaml
from PIL import Image

from companion.install import plan as install_plan
from companion.install.errors import NotInstallable
from companion.install.godot.files import rewrite
from companion.install.plan import Placement
from companion.install.tree import Staged, load_manifest
from companion.install.unity.files import metas_first
from companion.jobs.engine import STAGING, Engine
from companion.media import ExportResult
from companion.store import Store
from tests.support.engine_checks import (
    check_sprite_clip,
    check_sprite_frames,
    check_unitypackage,
    guid_of,
)
from tests.support.install import COUNT, install, staged, unity_project
from tests.support.install import exported as exported  # the module's fixture


def godot_project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "project.godot").write_text("config_version=5\n")
    return root


def sheet_frames(exported: ExportResult) -> dict[str, dict[str, int]]:
    data = json.loads(exported.paths("spritesheet_json")[0].read_text())
    # Keyed by frame index; the engines name the sprites NAME_0000 and so on.
    return {f"hero_{int(key):04d}": entry["frame"] for key, entry in data["frames"].items()}


# -- Godot ---------------------------------------------------------------------------------


def test_godot_pack_is_rewritten_for_where_it_lands(exported: ExportResult, tmp_path: Path) -> None:
    project = godot_project(tmp_path / "game")
    outputs = staged(exported, tmp_path / "dl", "spritesheet", "spritesheet_json", "godot_pack")
    tree, _ = install("godot", project, "art/anims", outputs)
    assert tree.resource == "res://art/anims/hero.tres"
    found = check_sprite_frames(project, tree.resource)
    assert found.textures == ["res://art/anims/hero.png"] and found.frames == COUNT
    files = sorted(p.name for p in (project / "art" / "anims").iterdir())
    assert files == ["hero.json", "hero.png", "hero.tres"]  # the zip itself stays out
    assert tree.outputs["hero_godot.zip"] == "hero.tres"


# A pack's .tres may name its sheet by res:// path or, as Godot also reads, relative to
# the .tres's own folder.
@pytest.mark.parametrize("reference", ["res://exports/sprites/walk.png", "sprites/walk.png"])
def test_a_foreign_godot_pack_is_unwrapped_and_its_uids_dropped(
    reference: str, exported: ExportResult, tmp_path: Path
) -> None:
    project = godot_project(tmp_path / "game")
    sheet = exported.paths("spritesheet")[0].read_bytes()
    width, height = Image.open(io.BytesIO(sheet)).size
    tres = (
        '[gd_resource type="SpriteFrames" load_steps=3 format=3 uid="uid://b4k2x"]\n\n'
        f'[ext_resource type="Texture2D" uid="uid://c1x9" path="{reference}"'
        ' id="1_tex"]\n\n'
        '[sub_resource type="AtlasTexture" id="A_0"]\n'
        'atlas = ExtResource("1_tex")\n'
        f"region = Rect2(0, 0, {width}, {height})\n\n"
        "[resource]\n"
        'animations = [{\n"frames": [{\n"duration": 1.0,\n"texture": SubResource("A_0")\n}],\n'
        '"loop": true,\n"name": &"walk",\n"speed": 10.0\n}]\n'
    )
    pack = tmp_path / "dl" / "hero_godot.zip"
    pack.parent.mkdir()
    with zipfile.ZipFile(pack, "w") as bundle:
        bundle.writestr("exports/sprites/walk.png", sheet)
        bundle.writestr("exports/sprites/walk.png.import", '[remap]\nimporter="texture"\n')
        bundle.writestr("exports/walk.tres", tres)
    tree, _ = install("godot", project, "anims", [Staged("godot_pack", pack.name, pack)])
    assert tree.resource == "res://anims/walk.tres"
    found = check_sprite_frames(project, tree.resource)
    assert found.textures == ["res://anims/sprites/walk.png"]
    assert not list(project.rglob("*.import"))


def test_references_outside_the_pack_are_left_alone() -> None:
    text = (
        '[gd_scene load_steps=2 format=3 uid="uid://x"]\n'
        '[ext_resource type="Texture2D" path="res://icon.svg" id="1"]\n'
        '[ext_resource type="Texture2D" path="res://old/place/hero.png" id="2"]\n'
    )
    out = rewrite(text, {PurePosixPath("hero.png"): "res://new/hero.png"}, PurePosixPath("."))
    assert 'path="res://icon.svg"' in out and 'path="res://new/hero.png"' in out
    assert "uid=" not in out


def test_godot_pack_built_from_the_sheet_when_missing(
    exported: ExportResult, tmp_path: Path
) -> None:
    project = godot_project(tmp_path / "game")
    outputs = staged(exported, tmp_path / "dl", "spritesheet", "spritesheet_json")
    tree, _ = install("godot", project, ".", outputs)
    assert tree.resource == "res://hero.tres"
    found = check_sprite_frames(project, tree.resource)
    assert found.frames == COUNT and found.textures == ["res://hero.png"]
    data = json.loads((project / "hero.json").read_text())
    assert found.speed == pytest.approx(data["meta"]["fps"])
    regions = (project / "hero.tres").read_text()
    for frame in sheet_frames(exported).values():
        assert f"Rect2({frame['x']}, {frame['y']}, {frame['w']}, {frame['h']})" in regions


def test_a_pack_sheet_with_other_bytes_does_not_replace_the_plain_sheet(
    exported: ExportResult, tmp_path: Path
) -> None:
    project = godot_project(tmp_path / "game")
    outputs = staged(exported, tmp_path / "dl", "spritesheet", "godot_pack")
    pack = next(o for o in outputs if o.format == "godot_pack")
    with zipfile.ZipFile(pack.path) as bundle:
        members = {n: bundle.read(n) for n in bundle.namelist()}
    changed = io.BytesIO()
    Image.open(io.BytesIO(members["hero.png"])).transpose(Image.Transpose.FLIP_TOP_BOTTOM).save(
        changed, "PNG"
    )
    members["hero.png"] = changed.getvalue()
    with zipfile.ZipFile(pack.path, "w") as bundle:
        for name, data in members.items():
            bundle.writestr(name, data)
    tree, _ = install("godot", project, "anims", outputs)
    assert tree.resource is not None
    found = check_sprite_frames(project, tree.resource)
    assert found.textures == ["res://anims/hero_godot.png"]
    plain = exported.paths("spritesheet")[0].read_bytes()
    assert (project / "anims" / "hero.png").read_bytes() == plain


# -- Unity ---------------------------------------------------------------------------------


def test_unitypackage_layout(exported: ExportResult) -> None:
    paths = check_unitypackage(exported.paths("unity_pack")[0])
    assert sorted(paths.values()) == [
        "Assets/Animations/hero/hero.anim",
        "Assets/Animations/hero/hero.png",
    ]


def test_unity_pack_lands_under_the_target_with_metas_first(
    exported: ExportResult, tmp_path: Path
) -> None:
    project = unity_project(tmp_path / "game")
    outputs = staged(exported, tmp_path / "dl", "spritesheet", "spritesheet_json", "unity_pack")
    tree, order = install("unity", project, "Assets/Characters/Hero", outputs)
    assert tree.resource == "Assets/Characters/Hero/hero.anim"
    for index, relative in enumerate(order):
        if not relative.endswith(".meta") and relative + ".meta" in order:
            assert order[index - 1] == relative + ".meta"  # never an asset without its meta
    clip = check_sprite_clip(project, tree.resource)
    assert clip.frames == COUNT and clip.texture.name == "hero.png"
    assert clip.stop_time == pytest.approx(COUNT / clip.sample_rate, abs=1e-3)
    height = Image.open(clip.texture).size[1]
    by_name = {s["name"]: s for s in clip.sprites.values()}
    for name, frame in sheet_frames(exported).items():
        rect = by_name[name]["rect"]
        assert (rect["x"], rect["width"], rect["height"]) == (frame["x"], frame["w"], frame["h"])
        assert rect["y"] == height - frame["y"] - frame["h"]  # Unity counts from the bottom
        assert by_name[name]["alignment"] == 7  # bottom centre
    assert not list(project.rglob("*.unitypackage"))


def test_unity_guids_stay_on_reinstall_and_never_clash(
    exported: ExportResult, tmp_path: Path
) -> None:
    project = unity_project(tmp_path / "game")
    outputs = staged(exported, tmp_path / "dl", "spritesheet", "unity_pack")
    first, _ = install("unity", project, "Assets/A", outputs)
    guid_a = guid_of(project / "Assets/A/hero.png.meta")
    install(
        "unity",
        project,
        "Assets/A",
        staged(exported, tmp_path / "dl2", "spritesheet", "unity_pack"),
    )
    assert guid_of(project / "Assets/A/hero.png.meta") == guid_a  # references survive
    second, _ = install(
        "unity",
        project,
        "Assets/B",
        staged(exported, tmp_path / "dl3", "spritesheet", "unity_pack"),
    )
    assert guid_of(project / "Assets/B/hero.png.meta") != guid_a
    assert second.resource is not None and first.resource is not None
    for resource in (first.resource, second.resource):
        check_sprite_clip(project, resource)  # also checks no guid is used twice


def test_unity_pack_built_from_the_sheet_when_missing(
    exported: ExportResult, tmp_path: Path
) -> None:
    project = unity_project(tmp_path / "game")
    outputs = staged(exported, tmp_path / "dl", "spritesheet", "spritesheet_json", "unity_meta")
    tree, _ = install("unity", project, "Assets/Sprites", outputs)
    assert tree.resource == "Assets/Sprites/hero.anim"
    clip = check_sprite_clip(project, tree.resource)
    assert clip.frames == COUNT
    meta = yaml.safe_load((project / "Assets/Sprites/hero.png.meta").read_text())
    assert len(meta["TextureImporter"]["spriteSheet"]["sprites"]) == COUNT


def test_metas_first_pairs_each_meta_with_its_asset() -> None:
    order = ["a.png", "b.anim", "b.anim.meta", "a.png.meta", "orphan.meta", "c.gif"]
    assert metas_first(order) == [
        "a.png.meta",
        "a.png",
        "b.anim.meta",
        "b.anim",
        "orphan.meta",
        "c.gif",
    ]


# -- refusals ------------------------------------------------------------------------------


def test_unity_target_outside_assets_is_refused(exported: ExportResult, tmp_path: Path) -> None:
    project = unity_project(tmp_path / "game")
    outputs = staged(exported, tmp_path / "dl", "spritesheet", "unity_pack")
    with pytest.raises(NotInstallable, match="Assets"):
        install("unity", project, "Library/hero", outputs)
    assert not (project / "Library").exists()


@pytest.mark.parametrize("engine", ["godot", "unity"])
def test_a_hostile_pack_is_refused_and_nothing_lands(
    engine: str, exported: ExportResult, tmp_path: Path
) -> None:
    project = (
        godot_project(tmp_path / "game") if engine == "godot" else unity_project(tmp_path / "game")
    )
    pack = tmp_path / "dl" / "hero.pack"
    pack.parent.mkdir()
    with zipfile.ZipFile(pack, "w") as bundle:
        bundle.writestr("hero.png", b"x")
        bundle.writestr("../../escaped.txt", b"gotcha")
    target = "anims" if engine == "godot" else "Assets/anims"
    with pytest.raises(NotInstallable, match="climbs out"):
        install(engine, project, target, [Staged(f"{engine}_pack", pack.name, pack)])
    assert not list(tmp_path.rglob("escaped.txt"))
    assert not (project / target).exists()


def test_missing_pack_without_a_sheet_says_what_to_ask_for(tmp_path: Path) -> None:
    project = godot_project(tmp_path / "game")
    gif = tmp_path / "hero.gif"
    gif.write_bytes(b"GIF89a")
    with pytest.raises(NotInstallable, match="spritesheet_json"):
        install("godot", project, "anims", [Staged("gif", gif.name, gif)])


class Interrupted(Exception):
    pass


def test_an_interrupted_install_finishes_from_its_manifest(
    exported: ExportResult, tmp_path: Path
) -> None:
    project = unity_project(tmp_path / "game")
    target = project / "Assets" / "Hero"
    outputs = staged(exported, tmp_path / "dl", "spritesheet", "spritesheet_json", "unity_pack")
    folder = tmp_path / "staging"
    tree = install_plan.build(
        Placement("unity", project, target), outputs, folder, name="hero", formats=[], export={}
    )
    moved = 0

    def crash_after_three() -> None:
        nonlocal moved
        moved += 1
        if moved == 3:
            raise Interrupted

    with pytest.raises(Interrupted):
        tree.apply(target, after_each=crash_after_three)
    assert 0 < len(list(target.iterdir())) < len(tree.order)
    resumed = load_manifest(folder)  # what a restarted daemon finds
    assert resumed is not None and resumed.order == tree.order
    resumed.apply(target)
    assert sorted(p.name for p in target.iterdir()) == sorted(tree.order)
    assert resumed.resource is not None
    check_sprite_clip(project, resumed.resource)


def test_a_refused_pack_fails_the_job_but_keeps_what_was_paid_for(tmp_path: Path) -> None:
    """Through the job engine: the install is refused, the downloads go in as they are,
    and the job says why."""
    project = godot_project(tmp_path / "game")
    target = project / "anims"
    store = Store(tmp_path / "companion.db")
    engine = Engine(store, cast(Any, None), "http://service.invalid")
    job = engine.submit(
        {"image": "hero.png", "install": {"engine": "godot", "root": str(project)}},
        name="hero",
        target_dir=target,
    )
    staging = target / STAGING / job.id
    staging.mkdir(parents=True)
    pack = staging / "hero_godot.zip"
    with zipfile.ZipFile(pack, "w") as bundle:
        bundle.writestr("../../../escaped.tres", b"[gd_resource]")
    paid_for = pack.read_bytes()
    store.add_assets(job.id, [("asset_1", "godot_pack", pack.name, len(paid_for))])
    store.asset_staged("asset_1", str(pack), "0" * 64)
    job = store.update_job(
        job.id, state="installing", remote_status="succeeded", resolved={"export": {}}
    )
    finished = engine._install(job)
    assert finished.state == "failed" and "climbs out" in (finished.error or "")
    assert (target / "hero_godot.zip").read_bytes() == paid_for
    assert not list(tmp_path.rglob("escaped.tres"))
