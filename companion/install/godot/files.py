"""Godot 4 installs: every file under res://, and every text resource's references
pointing at where the files really land.

A pack is written for the folder its maker guessed; here its ext_resource paths are
rewritten to the job's target folder (matched by the referenced file's path inside the
pack), and the uids it carries are dropped, since they name resources of another
project. `.import` and `.uid` files are left out: Godot writes its own when it scans.
When the pack was asked for and not returned, it is built here from the spritesheet and
its JSON."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path, PurePosixPath

from companion.install.errors import NotInstallable
from companion.install.packs import Context, animation_from_sheets, place_outputs, unpack
from companion.install.safety import policy
from companion.install.sheet_source import Defaults
from companion.install.tree import Staged, Tree, strip_common_top
from companion.media import godot_res_path, godot_string
from companion.media.formats.godot import sprite_frames

PACK = "godot_pack"
TEXT_RESOURCES = frozenset({".tres", ".tscn"})
RESOURCES = TEXT_RESOURCES | {".res"}
LEFT_OUT = frozenset({".import", ".uid"})
HEADER = re.compile(r"^\[(gd_resource|gd_scene|ext_resource)\b[^\n]*\]", re.MULTILINE)
PATH_ATTR = re.compile(r'\bpath="([^"]*)"')
UID_ATTR = re.compile(r'\s+uid="uid://[^"]*"')
SPRITE_FRAMES = re.compile(r'^\[gd_resource\s+type="SpriteFrames"', re.MULTILINE)


def res_path(project_root: Path, target: Path, relative: str = "") -> str:
    """The res:// path of a file (or, without one, the folder) under the target."""
    return godot_res_path((target / relative).relative_to(project_root).as_posix())


def rewrite(text: str, moved: dict[PurePosixPath, str], here: PurePosixPath) -> str:
    """References to the pack's own files point at their final res:// paths; a relative
    one is read, as Godot does, from the folder `here` of the resource inside the pack."""

    def one_path(match: re.Match[str]) -> str:
        value = match.group(1)
        if value.startswith("res://"):
            inner = value[len("res://") :]
        elif "://" in value or value.startswith("/"):
            return match.group(0)
        else:
            inner = posixpath.normpath((here / value).as_posix())
        best: PurePosixPath | None = None
        for packed in moved:
            whole = packed.as_posix()
            if (inner == whole or inner.endswith("/" + whole)) and (
                best is None or len(whole) > len(best.as_posix())
            ):
                best = packed
        return f"path={godot_string(moved[best])}" if best is not None else match.group(0)

    def one_header(match: re.Match[str]) -> str:
        line = match.group(0)
        if match.group(1) == "ext_resource" and not PATH_ATTR.search(line):
            return line
        return UID_ATTR.sub("", PATH_ATTR.sub(one_path, line))

    return HEADER.sub(one_header, text)


def plan(tree: Tree, outputs: list[Staged], job: Context) -> None:
    packs = place_outputs(tree, outputs, PACK)
    for pack in packs:
        _install_pack(tree, pack, job.project_root, job.target, job.scratch)
    if job.wants_pack and not packs:
        _build_pack(tree, outputs, job.project_root, job.target, job.name, job.defaults)


def _install_pack(
    tree: Tree, pack: Staged, project_root: Path, target: Path, scratch: Path
) -> None:
    files = {p: f for p, f in unpack(pack, scratch).items() if p.suffix not in LEFT_OUT}
    for inside, path in files.items():
        policy.check("godot", inside, pack.name)
        if inside.suffix.lower() in RESOURCES:
            policy.check_godot_resource(inside, path.read_bytes(), pack.name)
    packed = list(files)
    short = dict(zip(packed, strip_common_top(packed), strict=True))
    final: dict[PurePosixPath, str] = {}
    texts: list[PurePosixPath] = []
    for original in sorted(packed, key=lambda p: p.suffix in TEXT_RESOURCES):
        relative, same = tree.free_name(short[original].as_posix(), files[original], "godot")
        final[original] = relative
        if original.suffix in TEXT_RESOURCES:
            texts.append(original)
        elif not same:
            tree.add(relative, files[original], link=False)
    moved = {short[p]: res_path(project_root, target, final[p]) for p in packed}
    main: str | None = None
    for original in texts:
        try:
            text = files[original].read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise NotInstallable(f"{pack.name}: {original} is not a text resource") from exc
        tree.write(final[original], rewrite(text, moved, short[original].parent))
        if main is None and SPRITE_FRAMES.search(text):
            main = final[original]
    main = main or (final[texts[0]] if texts else final[packed[0]])
    tree.outputs[pack.name] = main
    if main.endswith(".tres"):
        tree.resource = tree.resource or res_path(project_root, target, main)


def _build_pack(
    tree: Tree,
    outputs: list[Staged],
    project_root: Path,
    target: Path,
    name: str,
    defaults: Defaults,
) -> None:
    animation = animation_from_sheets(tree, outputs, name, defaults, "Godot")
    res_dir = res_path(project_root, target)
    relative = f"{name}.tres"
    if tree.has(relative):
        raise NotInstallable(f"{relative} is already among the outputs")
    tree.write(relative, sprite_frames(animation, res_dir))
    tree.resource = res_path(project_root, target, relative)
