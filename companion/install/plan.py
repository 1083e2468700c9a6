"""Engine-aware installs: which files a finished job puts in a project, and where.

Godot and Unity projects get their engine's layout (see godot.py and unity.py); any
other project gets the downloads as they are. The plan is laid out in the job's staging
folder and sealed with a manifest before anything moves, so an install that is
interrupted finishes from the manifest alone."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.install.godot import files as godot
from companion.install.packs import Context
from companion.install.sheet_source import Defaults
from companion.install.tree import Staged, Tree
from companion.install.unity import files as unity

ENGINES = {"godot": godot, "unity": unity}


@dataclass(frozen=True)
class Placement:
    """Where a job's results go, and for which engine."""

    engine: str
    project_root: Path
    target: Path

    @property
    def engine_aware(self) -> bool:
        return self.engine in ENGINES


def default_target(engine: str) -> str:
    """Where results land when the project names no folder: Unity sees only Assets/."""
    return "Assets/Animations" if engine == "unity" else "animations"


def defaults_from(export: dict[str, Any], pixel_art: bool = False) -> Defaults:
    unity_options = export.get("unity") or {}
    return Defaults(
        fps=float(export.get("fps") or 12.0),
        pivot=str(unity_options.get("pivot") or "bottom_center"),
        pixels_per_unit=float(unity_options.get("pixels_per_unit") or 100.0),
        pixel_art=pixel_art,
    )


def build(
    placement: Placement,
    outputs: list[Staged],
    folder: Path,
    *,
    name: str,
    formats: list[str],
    export: dict[str, Any],
    pixel_art: bool = False,
) -> Tree:
    """Lay the install out under folder/tree and seal it with the manifest."""
    tree = Tree(root=folder / "tree")
    scratch = folder / "unpacked"
    for stale in (tree.root, scratch):
        shutil.rmtree(stale, ignore_errors=True)  # a build cut short is made again
    tree.root.mkdir(parents=True)
    module = ENGINES[placement.engine]
    try:
        job = Context(
            project_root=placement.project_root,
            target=placement.target,
            name=name,
            wants_pack=module.PACK in formats,
            defaults=defaults_from(export, pixel_art),
            scratch=scratch,
        )
        module.plan(tree, outputs, job)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    tree.seal()
    return tree
