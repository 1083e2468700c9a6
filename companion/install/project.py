"""Which game project a folder lies in: a registered one (the deepest that holds it),
else the nearest folder above it that is a Godot project (project.godot) or a Unity one
(Assets and ProjectSettings). Results written there are installed the engine's way, by
whichever way in made them, so one animation never lands as two layouts."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from companion.install.plan import Placement
from companion.install.unity.files import in_unity_assets

# What makes a folder an engine's project root: (name, is a folder). The one list the
# registry, the plugin installer and the CLI's project finder all read.
ENGINE_MARKERS: dict[str, tuple[tuple[str, bool], ...]] = {
    "godot": (("project.godot", False),),
    "unity": (("Assets", True), ("ProjectSettings", True)),
}


def missing_marker(root: Path, engine: str) -> tuple[str, bool] | None:
    """The first marker of engine's project that root lacks, (name, is a folder); None
    when root is such a project (or the engine has no markers)."""
    for name, is_folder in ENGINE_MARKERS.get(engine, ()):
        marker = root / name
        if not (marker.is_dir() if is_folder else marker.is_file()):
            return name, is_folder
    return None


def engine_of(root: Path) -> str | None:
    """The engine whose project root this folder is, if any."""
    for engine in ENGINE_MARKERS:
        if missing_marker(root, engine) is None:
            return engine
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
    if found.engine == "unity" and not in_unity_assets(found.project_root, found.target):
        return None
    return found
