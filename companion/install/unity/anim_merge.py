"""Edits survive a re-install into Unity: an AnimationClip and the metas the companion
wrote earlier at the same place are merged, not refused, when the user (or Unity, which
rewrites what it imports) changed them.

- The clip keeps everything of the user's file (loop time and the other clip settings,
  events, curves they added, the binding's path) except its sprite keyframes, their
  mapping, the sample rate and the stop time, which are the new animation's.
- A sliced texture's meta keeps the user's import settings and guid; its sprite table is
  the new one, and a sprite of the same name keeps the user's internalID and spriteID,
  so every reference to it (scenes, prefabs, the clip) still resolves.
- Any other meta is the user's, whole: its guid, so references to the asset survive.

A file the companion never wrote at that place (the user's own clip of the same name) is
never merged; it stays a conflict, refused before anything is paid. Merging a merged file
again gives the same file, so an install resumed after a crash writes the same bytes.

Unity's YAML is read line by line: two-space indents, and a list's items at the indent of
their key (`  m_PPtrCurves:` then `  - curve:`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from companion.install.errors import NotMergeable
from companion.install.safety.ownership import Owner
from companion.install.safety.plain_files import read_plain_text
from companion.install.tree import Tree

# A meta's guid line; unity.py reads guids with it too.
GUID = re.compile(r"^guid:\s*([0-9a-fA-F]{32})\s*$", re.M)
REF = re.compile(r"\{fileID: (-?\d+), guid: ([0-9a-fA-F]{32}), type: (\d+)\}")
CLIP_HEADER = "--- !u!74 "


# -- Unity's YAML, line by line ----------------------------------------------------------


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _find(lines: list[str], key: str, indent: int, start: int = 0, end: int | None = None) -> int:
    """The index of `key:` at exactly that indent in lines[start:end], or -1."""
    head = " " * indent + key + ":"
    for i in range(start, len(lines) if end is None else end):
        if lines[i] == head or lines[i].startswith(head + " "):
            return i
    return -1


def _end(lines: list[str], at: int) -> int:
    """Where the block of the key at `at` ends: its deeper lines and its own list items."""
    own = _indent(lines[at])
    i = at + 1
    while i < len(lines):
        line = lines[i]
        deeper = _indent(line) > own and line.strip() != ""
        if not (deeper or (_indent(line) == own and line[own:].startswith("- "))):
            break
        i += 1
    return i


def _items(lines: list[str], start: int, end: int, indent: int) -> list[tuple[int, int]]:
    """(first, end) of each `- ` item at indent in lines[start:end]."""
    marks = [i for i in range(start, end) if _indent(lines[i]) == indent
             and lines[i][indent:].startswith("- ")]  # fmt: skip
    return [(m, marks[n + 1] if n + 1 < len(marks) else end) for n, m in enumerate(marks)]


def _value(lines: list[str], key: str, indent: int, start: int, end: int) -> str | None:
    at = _find(lines, key, indent, start, end)
    return None if at < 0 else lines[at].split(":", 1)[1].strip()


def _set(lines: list[str], key: str, indent: int, value: str, start: int = 0) -> None:
    at = _find(lines, key, indent, start)
    if at < 0:
        raise NotMergeable(f"no {key}")
    lines[at] = f"{' ' * indent}{key}: {value}"


# -- the clip ----------------------------------------------------------------------------


@dataclass
class _Curve:
    head: int  # the `curve:` line
    keys: tuple[int, int]  # the lines of its keyframes
    item: tuple[int, int]  # the whole curve


def _clip_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if sum(line.startswith("--- ") for line in lines) != 1 or not any(
        line.startswith(CLIP_HEADER) for line in lines
    ):
        raise NotMergeable("not one AnimationClip")
    return lines


def _sprite_curves(lines: list[str]) -> list[_Curve]:
    at = _find(lines, "m_PPtrCurves", 2)
    if at < 0:
        raise NotMergeable("no m_PPtrCurves")
    found = []
    for first, end in _items(lines, at + 1, _end(lines, at), 2):
        # `  - curve:` first, or (as Unity saves it) `  - serializedVersion: 2` and then
        # `    curve:`; either way the keyframes follow as `    - time:` items.
        head = (
            first if lines[first].startswith("  - curve:") else _find(lines, "curve", 4, first, end)
        )
        if head < 0:
            raise NotMergeable("a PPtr curve without keyframes")
        keys_end = head + 1
        while keys_end < end and (
            _indent(lines[keys_end]) > 4 or lines[keys_end].startswith("    - ")
        ):
            keys_end += 1
        sprite = _value(lines, "attribute", 4, keys_end, end) == "m_Sprite"
        renderer = _value(lines, "classID", 4, keys_end, end) == "212"
        if sprite and renderer:
            found.append(_Curve(head, (head + 1, keys_end), (first, end)))
    return found


def _all_refs(lines: list[str]) -> list[str]:
    """Every keyframe value of every PPtr curve, in order: the clip's pptrCurveMapping."""
    at = _find(lines, "m_PPtrCurves", 2)
    refs = []
    for line in lines[at + 1 : _end(lines, at)]:
        stripped = line.strip()
        if stripped.startswith("value: {"):
            refs.append(stripped[len("value: ") :])
    return refs


def merge_clip(users: str, generated: str) -> str:
    """The user's clip with the generated sprite keyframes (its references already the
    ones the project uses), their mapping, sample rate and stop time."""
    theirs, ours = _clip_lines(_lf(users)), _clip_lines(_lf(generated))
    new = _sprite_curves(ours)
    if len(new) != 1:
        raise NotMergeable("the generated clip holds one sprite curve")
    old_guids = {
        ref.group(2).lower()
        for curve in _sprite_curves(theirs)
        for ref in REF.finditer("\n".join(theirs[slice(*curve.keys)]))
    }
    new_guids = {r.group(2).lower() for r in REF.finditer("\n".join(ours[slice(*new[0].keys)]))}
    curves = _sprite_curves(theirs)
    # The user's curve that shows these sprites (they may have added others).
    curve = next((c for c in curves if old_guids & new_guids), curves[0] if curves else None)
    if curve is None:
        raise NotMergeable("the clip has no sprite curve")
    head = theirs[curve.head].removesuffix(" []")  # an empty curve gets keyframes
    lines = [
        *theirs[: curve.head],
        head,
        *ours[slice(*new[0].keys)],
        *theirs[curve.keys[1] :],
    ]
    _set(lines, "m_SampleRate", 2, _value(ours, "m_SampleRate", 2, 0, len(ours)) or "12")
    settings = _find(lines, "m_AnimationClipSettings", 2)
    stop = _value(ours, "m_StopTime", 4, 0, len(ours))
    if settings < 0 or stop is None:
        raise NotMergeable("no m_AnimationClipSettings")
    _set(lines, "m_StopTime", 4, stop, settings)
    binding = _find(lines, "m_ClipBindingConstant", 2)
    mapping = _find(lines, "pptrCurveMapping", 4, binding) if binding >= 0 else -1
    if mapping >= 0:
        refs = [f"    - {ref}" for ref in _all_refs(lines)]
        head = "    pptrCurveMapping:" + ("" if refs else " []")
        lines = [*lines[:mapping], head, *refs, *lines[_end(lines, mapping) :]]
    return "\n".join(lines)


def is_clip(text: str) -> bool:
    try:
        return bool(_sprite_curves(_clip_lines(text)))
    except NotMergeable:
        return False


# -- metas -------------------------------------------------------------------------------


def guid_of(text: str) -> str:
    match = GUID.search(text)
    if match is None:
        raise NotMergeable("a meta without a guid")
    return match.group(1).lower()


def _sprites(lines: list[str]) -> tuple[int, int, dict[str, tuple[str, str]]]:
    """The `    sprites:` block of a texture meta, and name -> (internalID, spriteID)."""
    sheet = _find(lines, "spriteSheet", 2)
    at = _find(lines, "sprites", 4, sheet, _end(lines, sheet)) if sheet >= 0 else -1
    if at < 0:
        raise NotMergeable("no sprite sheet")
    end = _end(lines, at)
    ids = {}
    for first, stop in _items(lines, at + 1, end, 4):
        name = _value(lines, "name", 6, first, stop)
        internal = _value(lines, "internalID", 6, first, stop)
        if name is not None and internal is not None:
            ids[name] = (internal, _value(lines, "spriteID", 6, first, stop) or "")
    return at, end, ids


def is_sprite_meta(text: str) -> bool:
    try:
        return bool(_sprites(text.split("\n"))[2])
    except NotMergeable:
        return False


def merge_texture_meta(users: str, generated: str) -> tuple[str, dict[str, str]]:
    """The user's texture meta with the generated sprite table; a sprite of the same name
    keeps the user's ids. Also returns generated internalID -> the user's."""
    theirs, ours = _lf(users).split("\n"), _lf(generated).split("\n")
    start, end, kept = _sprites(theirs)
    new_start, new_end, made = _sprites(ours)
    renumber = {made[n][0]: kept[n][0] for n in made if n in kept}
    respell = {made[n][1]: kept[n][1] for n in made if n in kept and kept[n][1]}
    table = []
    for line in ours[new_start:new_end]:
        key, _, value = line.partition(": ")
        field = key.strip()
        if field == "internalID" and value in renumber:
            line = f"{key}: {renumber[value]}"
        elif field == "spriteID" and value in respell:
            line = f"{key}: {respell[value]}"
        table.append(line)
    lines = theirs[:start] + table + theirs[end:]
    names = _find(lines, "nameFileIdTable", 4, _find(lines, "spriteSheet", 2))
    if names >= 0:
        rows = [f"      {n}: {renumber.get(ids[0], ids[0])}" for n, ids in made.items()]
        head = "    nameFileIdTable:" + ("" if rows else " {}")
        lines = [*lines[:names], head, *rows, *lines[_end(lines, names) :]]
    older = _find(lines, "internalIDToNameTable", 2)
    if older >= 0 and not lines[older].endswith("[]"):
        # The table older editors keep (213 is Sprite's class): the same sprites, same ids.
        rows = []
        for n, ids in made.items():
            rows += ["  - first:", f"      213: {renumber.get(ids[0], ids[0])}", f"    second: {n}"]
        lines = [*lines[:older], "  internalIDToNameTable:", *rows, *lines[_end(lines, older) :]]
    return "\n".join(lines), {g: u for g, u in renumber.items() if g != u}


# -- the install -------------------------------------------------------------------------


def mergeable(path: Path, owner: Owner) -> bool:
    """Whether an existing file there is merged rather than refused."""
    if not owner.wrote(path) or path.suffix not in (".anim", ".meta"):
        return False
    try:
        text = read_plain_text(path, follow=False)
        return is_clip(text) if path.suffix == ".anim" else bool(guid_of(text))
    except (OSError, UnicodeDecodeError, NotMergeable):
        return False


def merge_changed(tree: Tree, target: Path, owner: Owner) -> set[Path]:
    """Merge the project's clip and metas into the staged ones where they differ; returns
    the files merged (the install lets those replace the user's)."""
    merged: set[Path] = set()
    guids: dict[str, str] = {}  # staged guid -> the project's
    ids: dict[str, str] = {}  # staged sprite internalID -> the project's
    staged = [r for r in tree.order if tree.path(r).exists()]  # not moved before a crash

    def existing(relative: str) -> tuple[Path, str, str] | None:
        final = target / relative
        if not owner.wrote(final):
            return None
        try:
            users = read_plain_text(final, follow=False)
            ours = tree.path(relative).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        return (final, users, ours) if users != ours else None

    for relative in (r for r in staged if r.endswith(".meta")):
        found = existing(relative)
        if found is None:
            continue
        final, users, ours = found
        try:
            guids[guid_of(ours)] = guid_of(users)
            if is_sprite_meta(ours) and is_sprite_meta(users):
                text, renumbered = merge_texture_meta(users, ours)
                ids.update(renumbered)
            else:
                text = users  # the user's import settings, whole
        except NotMergeable:
            continue
        tree.write(relative, GUID.sub(f"guid: {guid_of(users)}", text, count=1))
        merged.add(final)
    for relative in (r for r in staged if r.endswith(".anim")):
        before = tree.path(relative).read_text(encoding="utf-8")
        ours = _renamed(before, guids, ids)
        found = existing(relative)
        if found is not None:
            try:
                ours = merge_clip(found[1], ours)
                merged.add(found[0])
            except NotMergeable:
                pass  # not the user's clip to merge into: the owner's refusal names it
        if ours != before:
            tree.write(relative, ours)
    return merged


def _renamed(text: str, guids: dict[str, str], ids: dict[str, str]) -> str:
    """References to the staged guids and sprite ids, as the project knows them."""

    def one(match: re.Match[str]) -> str:
        file_id, guid, kind = match.groups()
        guid = guids.get(guid.lower(), guid)
        return f"{{fileID: {ids.get(file_id, file_id)}, guid: {guid}, type: {kind}}}"

    return REF.sub(one, text)
