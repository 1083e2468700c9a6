"""Which game project a folder lies in: a registered one (the deepest that holds it),
else the nearest folder above it that is a Godot project (project.godot) or a Unity one
(Assets and ProjectSettings). Results written there are installed the engine's way, by
whichever way in made them, so one animation never lands as two layouts."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from companion.install.plan import Placement


def engine_of(root: Path) -> str | None:
    """The engine whose project root this folder is, if any."""
    if (root / "project.godot").is_file():
        return "godot"
    if (root / "Assets").is_dir() and (root / "ProjectSettings").is_dir():
        return "unity"
    return None


def placement_for(target: Path, registered: Iterable[tuple[str, str]] = ()) -> Placement | None:
    """The placement of results written into target (resolved), or None for a plain
    folder. registered: (root, engine) of the projects the daemon serves. A Unity folder
    outside Assets/ is a plain folder: Unity never imports it."""
    target = target.resolve()
    found: Placement | None = None
    for root_text, engine in registered:
        root = Path(root_text).resolve()
        if target.is_relative_to(root) and (
            found is None or len(root.parts) > len(found.project_root.parts)
        ):
            found = Placement(engine, root, target)
    if found is None:
        for folder in (target, *target.parents):
            marked = engine_of(folder)
            if marked is not None:
                found = Placement(marked, folder, target)
                break
    if found is None or not found.engine_aware:
        return None
    if found.engine == "unity" and found.target.relative_to(found.project_root).parts[:1] != (
        "Assets",
    ):
        return None
    return found
