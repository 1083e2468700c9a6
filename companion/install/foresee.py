"""What an install will write, known before anything is paid: the files of a name in a
target for the formats asked, and which of them are not the companion's to replace (a
SpriteFrames the user extended, a sheet they edited). A job that would meet one is
refused before it is sent, instead of failing after the service charged for it."""

from __future__ import annotations

from pathlib import Path

from companion.install import anim_merge
from companion.install.ownership import Owner
from companion.install.sprite_merge import mergeable
from companion.media import FILE_SUFFIX
from companion.store import Store

PACKS = {"godot_pack", "unity_pack", "unity_meta"}


def planned(engine: str, target: Path, name: str, formats: list[str]) -> list[Path]:
    """The files an install of these formats puts in target under name."""
    names: list[str] = []
    sheet = "spritesheet" in formats
    if engine == "godot" and ("godot_pack" in formats or (sheet and "spritesheet_json" in formats)):
        names += [f"{name}.png", f"{name}.json", f"{name}.tres"]
    if engine == "unity" and ({"unity_pack", "unity_meta"} & set(formats)):
        names += [f"{name}.png", f"{name}.png.meta", f"{name}.anim"]
    for fmt in formats:
        if fmt in FILE_SUFFIX and not (engine in ("godot", "unity") and fmt in PACKS):
            names.append(f"{name}{FILE_SUFFIX[fmt]}")
    return [target / n for n in dict.fromkeys(names)]


def conflicts(store: Store, name: str, paths: list[Path]) -> list[dict[str, str]]:
    """Each planned path the companion may not replace, with why."""
    owner = Owner(store, "quote", name)
    found = []
    for path in paths:
        reason = owner.refusal(path)
        # A SpriteFrames, or a Unity clip or meta the companion wrote, is merged instead.
        if reason is not None and not (mergeable(path) or anim_merge.mergeable(path, owner)):
            found.append({"path": str(path), "reason": reason})
    return found
