"""What of a user's SpriteFrames a merge may carry into the installed file: the user's
own animations and the textures they show, nothing else. A user's file (or one in a
cloned repository) can hold scripts (an ext_resource of type Script, a GDScript
sub_resource with `script/source`), inline `Object(...)` values or paths that leave
res://; a resource the kept animations do not use is left out, and an animation that
needs one of those makes the file unmergeable (it stays a conflict, untouched).
Every header kept is written again through the engine-file serializer."""

from __future__ import annotations

import re

from companion.install.errors import NotKept
from companion.media import EngineTextError, godot_res_path, godot_string

EXT_TYPES = frozenset({"Texture2D", "CompressedTexture2D", "ImageTexture", "AtlasTexture"})
SUB_TYPES = frozenset({"AtlasTexture", "ImageTexture", "Image", "PlaceholderTexture2D"})
# The bare words a texture or animation value may hold; anything else (Object, a
# script's class, a Callable) is code or a reference this merge does not carry.
WORDS = frozenset(
    {
        "ExtResource",
        "SubResource",
        "true",
        "false",
        "null",
        "inf",
        "nan",
        "Rect2",
        "Rect2i",
        "Vector2",
        "Vector2i",
        "Color",
        "PackedByteArray",
        "PackedFloat32Array",
        "PackedInt32Array",
    }
)
TOKEN = re.compile(
    r'\s+|&?"(?:[^"\\\n]|\\.)*"|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?'
    r"|[A-Za-z_]\w*|[\[\]{}(),:=]"
)
KEY = re.compile(r"^([A-Za-z_][\w/]*)[ \t]*=", re.M)
ATTR = re.compile(r'(\w+)=("[^"\n]*"|[\w.]+)')
REF = re.compile(r'\b(?:ExtResource|SubResource)\("([^"\n]+)"\)')


def plain_value(text: str) -> bool:
    """Whether text is only data: strings, numbers, the allowed words and punctuation."""
    at = 0
    while at < len(text):
        match = TOKEN.match(text, at)
        if match is None:
            return False
        word = match.group(0)
        if (word[0].isalpha() or word[0] == "_") and word not in WORDS:
            return False
        at = match.end()
    return True


def _attrs(header: str) -> dict[str, str]:
    return {k: v.strip('"') for k, v in ATTR.findall(header)}


def _ext_header(attrs: dict[str, str], new_id: str) -> str:
    path = attrs.get("path", "")
    if attrs.get("type") not in EXT_TYPES or not path.startswith("res://"):
        raise NotKept(f"an ext_resource of type {attrs.get('type')!r} at {path!r}")
    try:
        kept_path = godot_res_path(path[len("res://") :])
        if kept_path != path:
            raise NotKept(f"{path!r} is not a plain res:// path")
        return (
            f"[ext_resource type={godot_string(attrs['type'])} path={godot_string(path)} "
            f"id={godot_string(new_id)}]"
        )
    except EngineTextError as exc:
        raise NotKept(str(exc)) from exc


def _sub(attrs: dict[str, str], body: str, new_id: str) -> tuple[str, str]:
    kind = attrs.get("type", "")
    keys = KEY.findall(body)
    if kind not in SUB_TYPES or any(k == "script" or k.startswith("script/") for k in keys):
        raise NotKept(f"a sub_resource of type {kind!r}")
    if not plain_value(KEY.sub("", body)):
        raise NotKept(f"a sub_resource of type {kind!r} holds more than data")
    try:
        header = f"[sub_resource type={godot_string(kind)} id={godot_string(new_id)}]"
    except EngineTextError as exc:
        raise NotKept(str(exc)) from exc
    return header, body


def kept_resources(
    animations: list[str],
    sections: list[tuple[str, str, str]],
    rename: dict[str, str] | None = None,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The ext and sub resources (header, body) the kept animations use, in file order,
    each id prefixed by rename's rule (old id -> new id given by `prefix + old`).
    NotKept when an animation holds more than data or needs what may not be carried."""
    if not all(plain_value(a) for a in animations):
        raise NotKept("an animation holds more than data")
    by_id: dict[str, tuple[str, str, str]] = {}
    for kind, header, body in sections:
        if kind in ("ext_resource", "sub_resource"):
            found = _attrs(header).get("id")
            if found is not None:
                by_id[found] = (kind, header, body)
    needed: set[str] = set()
    waiting = [r for a in animations for r in REF.findall(a)]
    while waiting:
        ref = waiting.pop()
        if ref in needed:
            continue
        if ref not in by_id:
            raise NotKept(f"a reference to {ref!r}, which the file does not hold")
        needed.add(ref)
        waiting += REF.findall(by_id[ref][2])
    prefix = rename or {}
    ext: list[tuple[str, str]] = []
    sub: list[tuple[str, str]] = []
    for ref, (kind, header, body) in by_id.items():
        if ref not in needed:
            continue  # used by nothing kept: scripts and all, left out
        new_id = prefix.get(ref, ref)
        if kind == "ext_resource":
            ext.append((_ext_header(_attrs(header), new_id), ""))
        else:
            sub.append(_sub(_attrs(header), body, new_id))
    return ext, sub
