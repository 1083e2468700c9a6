"""What several test modules share."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from companion.install import plan as install_plan
from companion.install.plan import Placement
from companion.install.safety.ownership import Owner
from companion.install.tree import Staged, Tree
from companion.media import FILE_SUFFIX, ExportResult, ExportSpec, export_video
from companion.store import Store
from tests.support.media import KEY

COUNT = 8

FORMATS = ("spritesheet", "spritesheet_json", "unity_meta", "unity_pack", "godot_pack", "gif")


@pytest.fixture(scope="module")
def exported(index_video: Path, tmp_path_factory: pytest.TempPathFactory) -> ExportResult:
    out = tmp_path_factory.mktemp("export") / "out"
    spec = ExportSpec(
        formats=FORMATS, frame_count=COUNT, width=96, height=80, key_color=KEY, name="hero"
    )
    return export_video(index_video, out, spec)


def staged(exported: ExportResult, folder: Path, *formats: str) -> list[Staged]:
    """Copies of the outputs, named as the companion names downloads."""
    folder.mkdir(parents=True, exist_ok=True)
    outputs = []
    for output in exported.outputs:
        if output.format in formats:
            name = "hero" + FILE_SUFFIX[output.format]
            shutil.copy(output.path, folder / name)
            outputs.append(Staged(output.format, name, folder / name))
    return outputs


def install(
    engine: str,
    project: Path,
    target: str,
    outputs: list[Staged],
    formats: tuple[str, ...] = FORMATS,
    work: Path | None = None,
    pixel_art: bool = False,
) -> tuple[Tree, list[str]]:
    folder = work or (project.parent / f"staging-{engine}")
    shutil.rmtree(folder, ignore_errors=True)
    placement = Placement(engine, project, project / target)
    tree = install_plan.build(
        placement, outputs, folder, name="hero", formats=list(formats), export={},
        pixel_art=pixel_art,
    )  # fmt: skip
    order = list(tree.order)
    # A re-install of the same animation replaces the files the companion wrote before.
    store = Store(project.parent / "books.db")
    try:
        tree.apply(project / target, guard=Owner(store, str(uuid.uuid4()), "hero"))
    finally:
        store.close()
    return tree, order


def unity_project(root: Path) -> Path:
    (root / "Assets").mkdir(parents=True)
    (root / "ProjectSettings").mkdir()
    return root
