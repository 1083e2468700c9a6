"""Independent checks that installed files are what Godot 4 and Unity need to load them.

They read the files the way the engines do (Godot's text resource grammar, Unity's YAML
and guid references) and re-derive every fact from the files on disk, not from the
writers, so a writer and its check cannot agree on a mistake."""

from __future__ import annotations

import re
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from PIL import Image
from unityparser import UnityDocument

HEX32 = re.compile(r"^[0-9a-f]{32}$")


# -- Godot ---------------------------------------------------------------------------------


@dataclass
class GodotAnimation:
    frames: int
    speed: float
    textures: list[str]  # res:// paths


def _res_to_file(project: Path, res: str) -> Path:
    assert res.startswith("res://"), res
    return project / res[len("res://") :]


def check_sprite_frames(project: Path, res: str) -> GodotAnimation:
    """A SpriteFrames .tres that Godot 4 loads: format 3, every ext_resource a file in
    the project, every atlas region inside its texture, all four animation keys."""
    text = _res_to_file(project, res).read_text()
    header = re.match(r'\[gd_resource type="SpriteFrames" load_steps=(\d+) format=3\]', text)
    assert header, text[:200]
    assert "uid=" not in text.splitlines()[0], "a foreign uid would name another resource"
    externals: dict[str, tuple[str, Image.Image]] = {}
    for match in re.finditer(r"\[ext_resource ([^\]]*)\]", text):
        attrs = dict(re.findall(r'(\w+)="([^"]*)"', match.group(1)))
        assert attrs["type"] == "Texture2D" and "uid" not in attrs, attrs
        file = _res_to_file(project, attrs["path"])
        assert file.is_file(), f"{attrs['path']} is not in the project"
        externals[attrs["id"]] = (attrs["path"], Image.open(file))
    atlas = re.compile(
        r'\[sub_resource type="AtlasTexture" id="([^"]+)"\]\n'
        r'atlas = ExtResource\("([^"]+)"\)\nregion = Rect2\(([^)]*)\)'
    )
    regions = {}
    for sub_id, ext_id, rect in atlas.findall(text):
        assert ext_id in externals, f"{sub_id} names a missing texture {ext_id}"
        x, y, w, h = (float(v) for v in rect.split(","))
        width, height = externals[ext_id][1].size
        assert x >= 0 and y >= 0 and w > 0 and h > 0 and x + w <= width and y + h <= height
        regions[sub_id] = (x, y, w, h)
    assert len(regions) == text.count('[sub_resource type="AtlasTexture"')
    assert int(header.group(1)) == len(externals) + len(regions) + 1
    body = text[text.index("[resource]") :]
    for key in ('"frames":', '"loop":', '"name":', '"speed":'):
        assert key in body, f"{key} missing: Godot would skip the animation"
    used = re.findall(r'"texture": SubResource\("([^"]+)"\)', body)
    assert used and all(u in regions for u in used)
    speed = float(re.search(r'"speed": ([0-9.e+-]+)', body).group(1))  # type: ignore[union-attr]
    return GodotAnimation(len(used), speed, [v[0] for v in externals.values()])


# -- Unity ---------------------------------------------------------------------------------


def guid_of(meta: Path) -> str:
    data = yaml.safe_load(meta.read_text())
    assert data["fileFormatVersion"] == 2
    guid = str(data["guid"])
    assert HEX32.match(guid), guid
    return guid


def project_metas(project: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for meta in (project / "Assets").rglob("*.meta"):
        guid = guid_of(meta)
        assert guid not in found, f"guid {guid} used by {found.get(guid)} and {meta}"
        found[guid] = meta
    return found


@dataclass
class UnityClip:
    frames: int
    sample_rate: float
    stop_time: float
    texture: Path
    sprites: dict[int, dict[str, Any]]  # internalID -> sprite entry


def check_sprite_clip(project: Path, asset_path: str, loop: bool = True) -> UnityClip:
    """An AnimationClip under Assets/ whose keyframes all name sprites of a sliced
    texture that is in the project: the texture's meta has that guid and the sprites
    that internalID, with rects inside the texture."""
    assert asset_path.startswith("Assets/"), asset_path
    clip_file = project / asset_path
    clip_meta = clip_file.with_name(clip_file.name + ".meta")
    assert clip_file.is_file() and clip_meta.is_file()
    guid_of(clip_meta)
    # unityparser reads Unity's own YAML dialect (%TAG !u!, --- !u!74 &7400000) as Unity
    # writes it; its scalars come back as text.
    document = UnityDocument.load_yaml(str(clip_file))
    assert len(document.entries) == 1, "one AnimationClip per .anim"
    clip = document.entry
    assert type(clip).__name__ == "AnimationClip" and clip.anchor == "7400000"
    curves = clip.m_PPtrCurves
    assert len(curves) == 1 and curves[0]["attribute"] == "m_Sprite"
    assert int(curves[0]["classID"]) == 212  # SpriteRenderer
    keys = curves[0]["curve"]
    metas = project_metas(project)
    textures: dict[str, tuple[Path, dict[int, dict[str, Any]]]] = {}
    times = []
    for key in keys:
        value = key["value"]
        assert int(value["type"]) == 3
        guid = str(value["guid"])
        assert guid in metas, f"keyframe names guid {guid}, which no meta in Assets has"
        if guid not in textures:
            meta = yaml.safe_load(metas[guid].read_text())
            importer = meta["TextureImporter"]
            assert importer["textureType"] == 8 and importer["spriteMode"] == 2
            assert importer["mipmaps"]["enableMipMap"] == 0
            assert importer["alphaIsTransparency"] == 1
            texture = metas[guid].with_name(metas[guid].name[: -len(".meta")])
            width, height = Image.open(texture).size
            sprites = {}
            for sprite in importer["spriteSheet"]["sprites"]:
                rect = sprite["rect"]
                assert rect["x"] >= 0 and rect["x"] + rect["width"] <= width
                assert rect["y"] >= 0 and rect["y"] + rect["height"] <= height
                sprites[int(sprite["internalID"])] = sprite
            textures[guid] = (texture, sprites)
        assert int(value["fileID"]) in textures[guid][1], "keyframe names no sprite"
        times.append(float(key["time"]))
    assert times == sorted(times) and times[0] == 0
    settings = clip.m_AnimationClipSettings
    assert int(settings["m_LoopTime"]) == int(loop)  # off only where the user turned it off
    texture, sprites = next(iter(textures.values()))
    return UnityClip(
        frames=len(keys),
        sample_rate=float(clip.m_SampleRate),
        stop_time=float(settings["m_StopTime"]),
        texture=texture,
        sprites=sprites,
    )


def check_unitypackage(path: Path) -> dict[str, str]:
    """The layout Unity's ImportPackage reads: GUID/asset, asset.meta, pathname; returns
    pathname by guid."""
    found: dict[str, dict[str, bytes]] = {}
    with tarfile.open(path, "r:gz") as bundle:
        for member in bundle.getmembers():
            assert member.isfile(), member.name
            guid, _, leaf = member.name.partition("/")
            assert HEX32.match(guid) and leaf in ("asset", "asset.meta", "pathname")
            source = bundle.extractfile(member)
            assert source is not None
            found.setdefault(guid, {})[leaf] = source.read()
    paths = {}
    for guid, leaves in found.items():
        assert {"asset.meta", "pathname"} <= set(leaves)
        assert yaml.safe_load(leaves["asset.meta"])["guid"] == guid
        pathname = leaves["pathname"].decode().splitlines()[0]
        assert pathname.startswith("Assets/") and ".." not in pathname
        paths[guid] = pathname
    return paths
