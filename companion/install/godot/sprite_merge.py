"""Edits survive a re-install: a SpriteFrames .tres the user changed is merged, not
refused. The generated animation's frames (and the sheets they cut) are the new ones;
the loop and speed the user set on it, every other animation they added, and the
resources those use are kept. Their resource ids are prefixed so they never meet the
generated ones."""

from __future__ import annotations

import re
from pathlib import Path

from companion.install.errors import NotKept, NotMergeable
from companion.install.godot.kept import kept_resources
from companion.install.safety.ownership import Owner
from companion.install.safety.plain_files import read_plain_text
from companion.install.tree import Tree

# One line each: a class that may span lines ([^\]]*) made a 150 KB file of "[a" lines
# quadratic (11 s for 60 KB).
SECTION = re.compile(r"^\[(\w+)([^\]\n]*)\][ \t\r]*$", re.M)
ID = re.compile(r'\bid="([^"]+)"')
REF = re.compile(r'\b(ExtResource|SubResource)\("([^"]+)"\)')
NAME = re.compile(r'"name":\s*&?"([^"]*)"')
LOOP = re.compile(r'"loop":\s*(true|false)')
SPEED = re.compile(r'"speed":\s*([-+0-9.eE]+)')
PREFIX = "kept_"
EARLIER_NAME = "default"  # every generated animation's name before they were named
# What the companion generated for its animation, kept in a merged file's metadata (Godot
# keeps it when the user saves): a loop or speed that differs from it is the user's.
# Godot writes it again over several lines when it saves.
GENERATED = re.compile(r"^metadata/companion_generated[ \t]*=[ \t]*(\{[^}]*\})", re.M)
RECORDED = re.compile(r'"([^"\n]+)":\s*([-+0-9.eE]+|true|false)')


def sections(text: str) -> list[tuple[str, str, str]]:
    """(kind, header line, body) in file order."""
    found = list(SECTION.finditer(text))
    if (
        not found
        or found[0].group(1) != "gd_resource"
        or 'type="SpriteFrames"' not in found[0].group(0)
    ):
        raise NotMergeable("not a SpriteFrames resource")
    out = []
    for n, match in enumerate(found):
        end = found[n + 1].start() if n + 1 < len(found) else len(text)
        out.append((match.group(1), match.group(0), text[match.end() : end].strip("\n")))
    return out


def animation_items(body: str) -> list[str]:
    """The top-level dictionaries of `animations = [...]`, as text."""
    start = body.find("animations = [")
    if start < 0:
        raise NotMergeable("no animations")
    depth, in_string, items, begin = 0, False, [], -1
    i = start + len("animations = [")
    while i < len(body):
        c = body[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "{":
            if depth == 0:
                begin = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                items.append(body[begin : i + 1])
        elif c == "]" and depth == 0:
            return items
        i += 1
    raise NotMergeable("the animations list does not end")


def _rename(text: str, ids: dict[str, str]) -> str:
    return REF.sub(lambda m: f'{m.group(1)}("{ids.get(m.group(2), m.group(2))}")', text)


def _record(found: re.Match[str] | None) -> dict[str, str]:
    """The values recorded as generated ("loop" and "speed", or per animation
    "NAME/loop" for a character's file), as written in the file."""
    return dict(RECORDED.findall(found.group(1))) if found else {}


def _fresh_ids(theirs: list[tuple[str, str, str]], ours: set[str]) -> dict[str, str]:
    """A new id for each of the user's that meets a generated one; the others stay, so
    merging again and again never grows them."""
    taken = ours | {i for k, h, _ in theirs if k != "resource" for i in ID.findall(h)}
    renamed: dict[str, str] = {}
    for kind, header, _ in theirs:
        for old in ID.findall(header) if kind != "resource" else ():
            if old in ours:
                new = PREFIX + old
                while new in taken:
                    new = PREFIX + new
                taken.add(new)
                renamed[old] = new
    return renamed


def merge(users: str, generated: str, *, keyed: bool = False) -> str:
    """The generated SpriteFrames with the user's other animations and settings kept.
    keyed: the file is a character's, one generated animation per move (see
    companion.install.godot.character): what was generated is recorded per animation, the
    new one takes the place of the one of its name (else goes last), and no older
    "default" is taken for it."""
    theirs = sections(users)
    ours = sections(generated)
    mine = animation_items(next(b for k, _, b in ours if k == "resource"))
    if len(mine) != 1:
        raise NotMergeable("the generated file holds one animation")
    name_match = NAME.search(mine[0])
    generated_name = name_match.group(1) if name_match else EARLIER_NAME
    resource = next((b for k, _, b in theirs if k == "resource"), None)
    if resource is None:
        raise NotMergeable("no [resource] section")
    kept: list[str] = []
    animation = mine[0]
    made = {"loop": LOOP.search(animation), "speed": SPEED.search(animation)}
    before = _record(GENERATED.search(resource))
    key = f"{generated_name}/" if keyed else ""
    items = animation_items(resource)
    names = [found.group(1) if (found := NAME.search(item)) else None for item in items]
    # A file from a release that named every animation "default": that one was the
    # companion's, and the new one (named after what it is) takes its place.
    replaced = generated_name if generated_name in names or keyed else EARLIER_NAME
    place = len(items)
    for item, item_name in zip(items, names, strict=True):
        if item_name == replaced:
            place = len(kept) if keyed else 0
            for field, pattern in (("loop", LOOP), ("speed", SPEED)):
                theirs_now = pattern.search(item)
                was = before.get(key + field)
                if theirs_now is None or was == theirs_now.group(1):
                    continue  # as the companion made it: the new value goes in
                animation = pattern.sub(f'"{field}": {theirs_now.group(1)}', animation)
        else:
            kept.append(item)
    header = ours[0][1]
    ext = [(h, b) for k, h, b in ours if k == "ext_resource"]
    sub = [(h, b) for k, h, b in ours if k == "sub_resource"]
    # Only what the user's own animations use, and only data: never a script or a path
    # that leaves res://, used or not.
    ids = _fresh_ids(theirs, {i for k, h, _ in ours if k != "resource" for i in ID.findall(h)})
    try:
        their_ext, their_sub = kept_resources(kept, theirs, ids)
    except NotKept as exc:
        raise NotMergeable(str(exc)) from exc
    ext += their_ext
    sub += [(h, _rename(b, ids)) for h, b in their_sub]
    kept = [_rename(item, ids) for item in kept]
    kept.insert(0 if not keyed else min(place, len(kept)), animation)
    header = re.sub(r"load_steps=\d+", f"load_steps={len(ext) + len(sub) + 1}", header)
    lines = [header, ""]
    lines += [h for h, _ in ext]
    lines.append("")
    for h, b in sub:
        lines += [h, *([b] if b else []), ""]
    lines += ["[resource]", "animations = [" + ", ".join(kept) + "]"]
    record = {key + k: m.group(1) for k, m in made.items() if m}
    if keyed:  # the record of the other moves still in the file stays
        still = {n for n in names if n is not None}
        older = {k: v for k, v in before.items() if k.split("/")[0] in still}
        record = {**older, **record}
    generated_values = ", ".join(f'"{k}": {v}' for k, v in record.items())
    lines += [f"metadata/companion_generated = {{{generated_values}}}", ""]
    return "\n".join(lines)


def carries_edits(path: Path) -> bool:
    """Whether a file the companion wrote is a merge holding the user's edits (so the
    next install merges into it again instead of replacing it)."""
    try:
        return GENERATED.search(read_plain_text(path, follow=False)) is not None
    except (OSError, UnicodeDecodeError):
        return False


def mergeable(path: Path) -> bool:
    """Whether a user's file there can be merged rather than refused."""
    if path.suffix != ".tres" or path.is_symlink() or not path.is_file():
        return False
    try:
        resource = next(
            b for k, _, b in sections(read_plain_text(path, follow=False)) if k == "resource"
        )
        animation_items(resource)
    except (NotMergeable, StopIteration, OSError, UnicodeDecodeError):
        return False
    return True


class MergingGuard:
    """An owner's guard that lets through the files merged for this install."""

    def __init__(self, owner: Owner, merged: set[Path]) -> None:
        self.owner = owner
        self.merged = merged

    def refusal(self, final: Path) -> str | None:
        return None if final in self.merged else self.owner.refusal(final)

    def claim(self, final: Path, sha256: str | None = None) -> None:
        self.owner.claim(final, sha256)


def merge_changed(tree: Tree, target: Path, owner: Owner) -> MergingGuard:
    """Merge each generated .tres whose installed file the user changed into the staged
    one; the guard returned lets those through and refuses as the owner does otherwise."""
    merged: set[Path] = set()
    for relative in tree.order:
        final = target / relative
        if not relative.endswith(".tres"):
            continue
        if owner.refusal(final) is None and not carries_edits(final):
            continue  # the companion's own file, with nothing of the user's in it
        if not mergeable(final) or not tree.path(relative).exists():
            continue
        try:
            text = merge(
                read_plain_text(final, follow=False),
                tree.path(relative).read_text(encoding="utf-8"),
            )
        except (NotMergeable, StopIteration, UnicodeDecodeError, OSError):
            # Not a file this install can merge (a pack the service made otherwise): it
            # stays the user's, and the owner's refusal below names it.
            continue
        tree.write(relative, text)
        merged.add(final)
    return MergingGuard(owner, merged)
