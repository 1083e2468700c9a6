"""A character's own Godot files, beside its moves' files: one SpriteFrames `NAME.tres`
with an animation per move (named after the move, its loop flag set, its speed as the
move was cut), and a scene `NAME.tscn` holding an AnimatedSprite2D that plays it.

Each move's install adds its animation here, whichever way in made it and in whatever
order the moves finish: the move's own SpriteFrames is taken whole (its frames and
sheets, every resource id prefixed by the move's name so moves never meet) and merged
into the character's file the way a user's edited SpriteFrames is merged (see
sprite_merge: their own animations, and the loop and speed they set on a move, are
kept; so are the moves made before). The scene is made once; from then on it is the
user's and never written again. Made for pixel art, its sprite filters nearest (Godot 4
filters on the CanvasItem, not in the texture's import), so no art pixel is blurred."""

from __future__ import annotations

import os
from pathlib import Path

from companion.install.errors import NotMergeable
from companion.install.godot.files import res_path
from companion.install.godot.sprite_merge import (
    ID,
    LOOP,
    NAME,
    REF,
    animation_items,
    merge,
    mergeable,
    sections,
)
from companion.install.safety.ownership import Owner
from companion.install.safety.plain_files import read_plain_text
from companion.install.tree import path_lock, read_with_digest, replace_unchanged
from companion.media import godot_string

EMPTY = '[gd_resource type="SpriteFrames" format=3]\n\n[resource]\nanimations = []\n'
OWNER_PREFIX = "character:"  # the record's name for a character's own files
TEXTURE_FILTER_NEAREST = 1  # CanvasItem.TEXTURE_FILTER_NEAREST
# One character file is merged by one install at a time (the daemon installs several
# moves at once, on threads).


def files(target: Path, character: str) -> tuple[Path, Path]:
    """The character's SpriteFrames and scene."""
    return target / f"{character}.tres", target / f"{character}.tscn"


def refusal(target: Path, character: str) -> str | None:
    """Why the character's SpriteFrames cannot take its moves (a file of that name that
    is not a SpriteFrames this merge reads), before anything is spent; None when it can.
    A scene of that name is the user's and simply left alone."""
    frames, _ = files(target, character)
    if os.path.lexists(frames) and not mergeable(frames):
        return (
            f"{frames} is not a SpriteFrames the companion can add the moves to (it is "
            "never replaced); give another name, or move the file away"
        )
    return None


def holds(target: Path, character: str, move: str) -> bool:
    """The character's SpriteFrames is there and has an animation named move."""
    frames, _ = files(target, character)
    if not mergeable(frames):
        return False
    resource = next(
        b for k, _, b in sections(read_plain_text(frames, follow=False)) if k == "resource"
    )
    return any(
        (found := NAME.search(item)) is not None and found.group(1) == move
        for item in animation_items(resource)
    )


def move_animation(text: str, move: str, loop: bool) -> str:
    """A move's own SpriteFrames as the character's generated animation: named after the
    move, looping or not, its resource ids prefixed by the move's name."""
    parts = sections(text)
    resource = next((b for k, _, b in parts if k == "resource"), None)
    if resource is None:
        raise NotMergeable("no [resource] section")
    animations = animation_items(resource)
    if len(animations) != 1:
        raise NotMergeable("a move's SpriteFrames holds one animation")
    ids = {i: f"{move}_{i}" for k, h, _ in parts if k != "resource" for i in ID.findall(h)}

    def renamed(part: str) -> str:
        part = REF.sub(lambda m: f'{m.group(1)}("{ids.get(m.group(2), m.group(2))}")', part)
        return ID.sub(lambda m: f'id="{ids.get(m.group(1), m.group(1))}"', part)

    animation = NAME.sub(f'"name": &{godot_string(move)}', renamed(animations[0]), count=1)
    flag = "true" if loop else "false"
    animation = LOOP.sub(f'"loop": {flag}', animation, count=1)
    lines = [parts[0][1], ""]
    for kind, header, body in parts[1:]:
        if kind != "resource":
            lines += [renamed(header), *([renamed(body)] if body else []), ""]
    lines += ["[resource]", f"animations = [{animation}]", ""]
    return "\n".join(lines)


def scene(frames_res: str, character: str, autoplay: str, pixel_art: bool = False) -> str:
    """An AnimatedSprite2D showing the character's SpriteFrames, playing autoplay; for
    pixel art, filtered nearest."""
    node = "".join(c if c not in '.:@/"%' else "_" for c in character) or "Character"
    played = godot_string(autoplay)
    nearest = [f"texture_filter = {TEXTURE_FILTER_NEAREST}"] if pixel_art else []
    return "\n".join(
        [
            "[gd_scene load_steps=2 format=3]",
            "",
            f'[ext_resource type="SpriteFrames" path={godot_string(frames_res)} id="1_frames"]',
            "",
            f'[node name={godot_string(node)} type="AnimatedSprite2D"]',
            *nearest,
            'sprite_frames = ExtResource("1_frames")',
            f"animation = &{played}",
            f"autoplay = {played}",
            "",
        ]
    )


def _write_new(path: Path, text: str, was: str | None) -> None:
    """text into path only while it still holds what was read (see replace_unchanged)."""
    if not replace_unchanged(path, text, was):
        raise NotMergeable(f"{path} changed while the move was added; run it again")


def add_move(
    project_root: Path,
    target: Path,
    *,
    character: str,
    move: str,
    loop: bool,
    autoplay: str,
    move_frames: Path,
    owner: Owner,
    pixel_art: bool = False,
) -> list[Path]:
    """The move (its SpriteFrames at move_frames) into the character's SpriteFrames, and
    the scene made when there is none (filtered nearest when the move is pixel art);
    returns the files written. NotMergeable when the
    character's file cannot take it (it is left as it was)."""
    frames, scene_path = files(target, character)
    generated = move_animation(read_plain_text(move_frames, follow=False), move, loop)
    written = []
    with path_lock(frames):
        users, was = read_with_digest(frames) if os.path.lexists(frames) else (EMPTY, None)
        _write_new(frames, merge(users, generated, keyed=True), was)
        written.append(frames)
        record = Owner(owner.record, owner.job_id, OWNER_PREFIX + character)
        record.claim(frames)
        if not os.path.lexists(scene_path):  # made once: then it is the user's
            frames_res = res_path(project_root, target, frames.name)
            text = scene(frames_res, character, autoplay, pixel_art)
            _write_new(scene_path, text, None)
            record.claim(scene_path)
            written.append(scene_path)
    return written
