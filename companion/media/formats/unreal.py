"""Unreal Paper2D: the hash-layout sheet JSON as .paper2dsprites beside its PNG (one pair
per page), plus a flipbook manifest. The manifest's extension keeps Unreal's importer
from taking it for another sprite sheet.

Paper2D names each sprite after its frame key, with '.' turned into '_', so the keys are
the bare frame names the flipbook manifest lists (`hero_0000`, not `hero_0000.png`)."""

from __future__ import annotations

import json
from pathlib import Path

from companion.media.formats.common import Animation, write_zip
from companion.media.formats.manifest import animation_manifest
from companion.media.formats.sheet_json import name_key, sheet_json


def write_unreal_pack(animation: Animation, folder: Path) -> Path:
    members: list[tuple[str, bytes | Path]] = []
    names = [page.path.with_suffix(".paper2dsprites").name for page in animation.pages]
    for page, own in zip(animation.pages, names, strict=True):
        related = [n for n in names if n != own]
        document = sheet_json(animation, page, related, key=name_key)
        members.append((page.path.name, page.path))
        members.append((own, (json.dumps(document, indent=1) + "\n").encode()))
    members.append((f"{animation.name}.flipbook", animation_manifest(animation)))
    path = folder / f"{animation.name}_paper2d.zip"
    write_zip(path, members)
    return path
