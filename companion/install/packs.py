"""What the engine installers share: unpacking a returned pack safely, and finding the
spritesheets and JSON a missing pack can be built from."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

from companion.install.archive import ArchiveError, extract
from companion.install.sheet_source import SheetPair
from companion.install.tree import InstallError, Staged, Tree


def unpack(pack: Staged, scratch: Path) -> dict[PurePosixPath, Path]:
    """The pack's files by their path inside it (defensively extracted)."""
    folder = scratch / pack.name
    try:
        placed = extract(pack.path, folder)
    except ArchiveError as exc:
        raise InstallError(f"{pack.name} was refused: {exc}") from exc
    files = {PurePosixPath(p.relative_to(folder).as_posix()): p for p in placed}
    if not files:
        raise InstallError(f"{pack.name} is empty")
    return files


def sheet_pairs(tree: Tree, outputs: list[Staged]) -> list[SheetPair]:
    """Each installed spritesheet with its JSON: by the JSON's meta.image when it names
    one of them, else page by page in the order the service listed them."""
    sheets = [o for o in outputs if o.format == "spritesheet"]
    datas = [o for o in outputs if o.format == "spritesheet_json"]
    if not sheets or not datas:
        return []
    by_name = {s.name: s for s in sheets}
    pairs: list[SheetPair] = []
    for index, data in enumerate(datas):
        try:
            image = str(
                (json.loads(data.path.read_text(encoding="utf-8")).get("meta") or {}).get(
                    "image", ""
                )
            )
        except (OSError, ValueError, AttributeError):
            image = ""
        sheet = by_name.get(image) or (sheets[index] if index < len(sheets) else None)
        if sheet is None:
            raise InstallError(f"{data.name} names no spritesheet that was returned")
        pairs.append(SheetPair(sheet=tree.path(tree.outputs[sheet.name]), data=data.path))
    return pairs
