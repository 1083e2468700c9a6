"""What the engine installers share: unpacking a returned pack safely, and finding the
spritesheets and JSON a missing pack can be built from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from companion.install.errors import ArchiveError, NotInstallable
from companion.install.safety.archive import extract
from companion.install.sheet_pages import pages
from companion.install.sheet_source import Defaults, SheetPair, read_animation
from companion.install.tree import Staged, Tree
from companion.media import Animation


@dataclass(frozen=True)
class Context:
    """What an engine's planner knows about the job it installs."""

    project_root: Path
    target: Path
    name: str
    wants_pack: bool  # the engine pack was asked for (so build it if it is missing)
    defaults: Defaults
    scratch: Path  # where packs are unpacked while the tree is built


def place_outputs(tree: Tree, outputs: list[Staged], pack_format: str) -> list[Staged]:
    """Every output but the engine's packs goes in under its own name; the packs are
    returned for the engine to unpack."""
    for output in outputs:
        if output.format != pack_format:
            tree.add(output.name, output.path)
            tree.outputs[output.name] = output.name
    return [o for o in outputs if o.format == pack_format]


def unpack(pack: Staged, scratch: Path) -> dict[PurePosixPath, Path]:
    """The pack's files by their path inside it (defensively extracted)."""
    folder = scratch / pack.name
    try:
        placed = extract(pack.path, folder)
    except ArchiveError as exc:
        raise NotInstallable(f"{pack.name} was refused: {exc}") from exc
    files = {PurePosixPath(p.relative_to(folder).as_posix()): p for p in placed}
    if not files:
        raise NotInstallable(f"{pack.name} is empty")
    return files


def animation_from_sheets(
    tree: Tree, outputs: list[Staged], name: str, defaults: Defaults, pack: str
) -> Animation:
    """The animation the returned spritesheets describe, to build a missing pack from."""
    pairs = sheet_pairs(tree, outputs)
    if not pairs:
        raise NotInstallable(
            f"the {pack} pack was not returned, and without the spritesheet and its JSON "
            "it cannot be built here: ask for spritesheet and spritesheet_json too"
        )
    return read_animation(name, pairs, defaults)


def sheet_pairs(tree: Tree, outputs: list[Staged]) -> list[SheetPair]:
    """Each installed spritesheet page with its JSON, in page order, paired by what they
    are (see sheet_pages), never by the order the service listed them in."""
    return [
        SheetPair(sheet=tree.path(tree.outputs[page.sheet.name]), data=page.data.path)
        for page in pages(outputs)
    ]
