"""Godot 4: a SpriteFrames text resource (.tres) with one AtlasTexture per frame.

In the pack the .tres names its sheets by file name alone, a path Godot resolves against
the .tres's own folder, so the pack works wherever it is extracted in a project. Given a
res:// folder instead (the daemon's install, `--godot-res-dir`), it names them there.
Every AtlasTexture clips filtering to its region so neighbouring frames never bleed in.
No .import files are shipped: Godot writes its own when the editor scans."""

from __future__ import annotations

from pathlib import Path

from companion.media.engine_text import godot_string
from companion.media.formats.common import Animation, FrameRect, write_zip


def sprite_frames(animation: Animation, res_dir: str | None = None) -> str:
    """The .tres text; sheets named under `res_dir`, or beside the .tres without one."""
    prefix = "" if res_dir is None else (res_dir if res_dir.endswith("/") else res_dir + "/")
    pages = animation.pages
    steps = len(pages) + animation.count + 1  # resources + 1
    lines = [
        f'[gd_resource type="SpriteFrames" load_steps={steps} format=3]',
        "",
    ]
    for page in pages:
        lines.append(
            f'[ext_resource type="Texture2D" path={godot_string(prefix + page.path.name)} '
            f'id="{page.index + 1}_sheet"]'
        )
    lines.append("")
    for rect in animation.frames:
        lines += [
            f'[sub_resource type="AtlasTexture" id="AtlasTexture_{rect.index}"]',
            f'atlas = ExtResource("{rect.page + 1}_sheet")',
            f"region = Rect2({rect.x}, {rect.y}, {rect.width}, {rect.height})",
            *_margin(rect),
            "filter_clip = true",
            "",
        ]
    # Frame durations are multiples of 1/speed; only a short final frame differs from 1.
    frames = ",\n".join(
        "{\n"
        f'"duration": {_real(rect.duration * animation.fps)},\n'
        f'"texture": SubResource("AtlasTexture_{rect.index}")\n'
        "}"
        for rect in animation.frames
    )
    lines += [
        "[resource]",
        "animations = [{",
        f'"frames": [{frames}],',
        '"loop": true,',
        f'"name": &{godot_string(animation.name)},',  # named after what it is, never default
        f'"speed": {_real(animation.fps)}',
        "}]",
        "",
    ]
    return "\n".join(lines)


def _margin(rect: FrameRect) -> list[str]:
    """A trimmed frame's place in the whole frame: Godot draws the region at the
    margin's position inside a texture grown by the margin's size, so every frame keeps
    the whole frame's size and offset."""
    if not rect.trimmed:
        return []
    source_w, source_h = rect.source_size
    return [
        f"margin = Rect2({rect.offset_x}, {rect.offset_y}, "
        f"{source_w - rect.width}, {source_h - rect.height})"
    ]


def _real(value: float) -> str:
    """Godot's own spelling of a float: always with a decimal point."""
    text = f"{value:.6g}"
    return text if any(c in text for c in ".en") else text + ".0"


def write_godot_pack(animation: Animation, folder: Path, res_dir: str | None = None) -> Path:
    tres = sprite_frames(animation, res_dir)
    members: list[tuple[str, bytes | Path]] = [
        (page.path.name, page.path) for page in animation.pages
    ]
    members.append((f"{animation.name}.tres", tres.encode()))
    path = folder / f"{animation.name}_godot.zip"
    write_zip(path, members)
    return path
