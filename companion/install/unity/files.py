"""Unity installs: every file under Assets/, each `.meta` moved in just before its asset
(Unity invents a meta with a fresh guid for an asset it sees alone, and references made
to the right guid then break).

A .unitypackage is unpacked here rather than by Unity: each guid folder's `pathname`
says where its asset goes; the paths are re-rooted at the job's target folder below
their common parent, so the pack lands where the user asked. A guid already used by
another asset of the project is replaced, in the metas and in every reference to it, by
one derived from the old guid and where the asset lands: installing the same pack to the
same place again gives the same guids, so references made in between survive. When the
pack was asked for and not returned, the sliced texture metas and the AnimationClip are
built here from the spritesheet and its JSON, with guids derived from where they land;
every other file gets a meta whose guid is derived from its path the same way."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from companion.install.errors import ArchiveError, NotInstallable
from companion.install.packs import Context, animation_from_sheets, place_outputs, unpack
from companion.install.safety import policy
from companion.install.safety.archive import safe_name
from companion.install.safety.plain_files import open_plain
from companion.install.sheet_source import Defaults
from companion.install.tree import Staged, Tree, strip_common_top
from companion.install.unity.anim_merge import GUID
from companion.media import stable_hex
from companion.media.formats.unity import (
    animation_clip,
    clip_meta,
    pixels_per_unit,
    texture_meta,
)

PACK = "unity_pack"
TEXT_ASSETS = frozenset(
    {".meta", ".anim", ".controller", ".overrideController", ".prefab", ".asset", ".mat"}
)


def in_unity_assets(project_root: Path, target: Path) -> bool:
    """Whether target is in the project's Assets folder, the only one Unity imports."""
    return target.relative_to(project_root).parts[:1] == ("Assets",)


def check_target(project_root: Path, target: Path) -> None:
    if not in_unity_assets(project_root, target):
        raise NotInstallable(
            f"{target} is outside the project's Assets folder, where Unity cannot see it; "
            "choose a target folder under Assets/"
        )


def asset_path(project_root: Path, target: Path, relative: str) -> str:
    return (target / relative).relative_to(project_root).as_posix()


def plan(tree: Tree, outputs: list[Staged], job: Context) -> None:
    check_target(job.project_root, job.target)
    packs = place_outputs(tree, outputs, PACK)
    for pack in packs:
        _install_pack(tree, pack, job.scratch)
    place = asset_path(job.project_root, job.target, "")
    if job.wants_pack and not packs:
        _build_pack(tree, outputs, job.name, job.defaults, place)
    _fresh_guids(tree, job.project_root, job.target)
    _default_metas(tree, place, job.defaults.pixel_art)
    tree.order = metas_first(tree.order)
    clip = next((r for r in tree.order if r.endswith(".anim")), None)
    if clip is not None:
        tree.resource = asset_path(job.project_root, job.target, clip)


def _entries(
    files: dict[PurePosixPath, Path], pack: str
) -> list[tuple[PurePosixPath, Path, Path | None]]:
    """(path inside Assets, asset bytes, its meta) for each file the pack carries."""
    folders = {p.parent for p in files if p.name == "pathname" and len(p.parts) == 2}
    entries: list[tuple[PurePosixPath, Path, Path | None]] = []
    if folders:  # the .unitypackage layout: GUID/asset, GUID/asset.meta, GUID/pathname
        for folder in sorted(folders):
            with files[folder / "pathname"].open("rb") as source:  # one line; never read whole
                lines = source.read(4096).decode("utf-8", errors="replace").splitlines()
            try:
                where = safe_name(lines[0].strip() if lines else "")
            except ArchiveError as exc:
                raise NotInstallable(f"{pack}: {folder}/pathname: {exc}") from exc
            if where.parts[0] != "Assets":
                raise NotInstallable(f"{pack}: {where} is not under Assets/")
            asset = files.get(folder / "asset")
            if asset is not None:  # folders carry only a meta and a pathname
                policy.check("unity", where, pack)
                entries.append((where, asset, files.get(folder / "asset.meta")))
        return entries
    for inside, path in files.items():  # a plain tree of assets with metas beside them
        if inside.suffix != ".meta":
            policy.check("unity", inside, pack)
            meta = files.get(inside.with_name(inside.name + ".meta"))
            entries.append((inside, path, meta))
    return entries


def _install_pack(tree: Tree, pack: Staged, scratch: Path) -> None:
    entries = _entries(unpack(pack, scratch), pack.name)
    if not entries:
        raise NotInstallable(f"{pack.name} carries no assets")
    short = strip_common_top([e[0] for e in entries])
    clip: str | None = None
    for (_, asset, meta), relative in zip(entries, short, strict=True):
        final, same = tree.free_name(relative.as_posix(), asset, "unity")
        if same:  # the texture is already there; the pack's meta is what its clip names
            if meta is not None:
                tree.write(final + ".meta", meta.read_text(encoding="utf-8"))
            continue
        if meta is not None:
            tree.add(final + ".meta", meta, link=False)
        tree.add(final, asset, link=False)
        if final.endswith(".anim") and clip is None:
            clip = final
    tree.outputs[pack.name] = clip or tree.order[-1]


def _build_pack(
    tree: Tree, outputs: list[Staged], name: str, defaults: Defaults, place: str
) -> None:
    animation = animation_from_sheets(tree, outputs, name, defaults, "Unity")
    per_unit = pixels_per_unit(animation)
    for page in animation.pages:
        # The clip refers to these guids and sprite ids, so this meta replaces any other.
        relative = page.path.relative_to(tree.root).as_posix()
        if "/" in relative:
            raise NotInstallable(f"{relative}: the spritesheet must sit beside its clip")
        tree.write(relative + ".meta", texture_meta(animation, page, place, per_unit))
    clip = f"{name}.anim"
    if tree.has(clip):
        raise NotInstallable(f"{clip} is already among the outputs")
    tree.write(clip + ".meta", clip_meta(animation, place))
    tree.write(clip, animation_clip(animation, place))


def _asset_metas(assets: Path) -> Iterator[Path]:
    """The .meta files Unity reads: folders it skips (hidden ".x", "x~" such as the
    staging folders other jobs unpack into, at this moment, beside this one) are not
    walked, and a folder removed while walked is passed over (os.walk ignores it)."""
    for folder, subfolders, files in os.walk(assets):
        subfolders[:] = [d for d in subfolders if not d.startswith(".") and not d.endswith("~")]
        for name in files:
            if name.endswith(".meta"):
                yield Path(folder) / name


def project_guids(project_root: Path) -> dict[str, Path]:
    """Every guid the project's Assets already use, by the meta that holds it."""
    found: dict[str, Path] = {}
    for meta in _asset_metas(project_root / "Assets"):
        try:
            with open_plain(meta) as source:  # a FIFO named x.meta would block the scan
                head = source.read(512).decode("utf-8", errors="replace")
        except OSError:
            continue
        match = GUID.search(head)
        if match:
            found[match.group(1).lower()] = meta
    return found


def _fresh_guids(tree: Tree, project_root: Path, target: Path) -> None:
    taken = project_guids(project_root)
    replace: dict[str, str] = {}
    mine: set[str] = set()
    for relative in tree.order:
        if not relative.endswith(".meta"):
            continue
        match = GUID.search(tree.path(relative).read_text(encoding="utf-8", errors="replace"))
        if match is None:
            continue
        guid = match.group(1).lower()
        owner = taken.get(guid)
        if guid in mine or (owner is not None and owner.resolve() != (target / relative).resolve()):
            landing = asset_path(project_root, target, relative[: -len(".meta")])
            replace[guid] = stable_hex("unity-moved", guid, landing)
        mine.add(guid)
    if not replace:
        return
    pattern = re.compile("|".join(replace), re.IGNORECASE)
    for relative in tree.order:
        if PurePosixPath(relative).suffix not in TEXT_ASSETS:
            continue
        text = tree.path(relative).read_text(encoding="utf-8")
        changed = pattern.sub(lambda m: replace[m.group(0).lower()], text)
        if changed != text:
            tree.write(relative, changed)


IMPORTERS = {
    ".json": "TextScriptImporter",
    ".txt": "TextScriptImporter",
    ".png": "TextureImporter",
    ".gif": "TextureImporter",
}
# A loose texture of pixel art: point filtered, uncompressed, no mipmaps (Unity fills
# every setting not named with its default, as it does for the bare meta).
PIXEL_ART_TEXTURE = """  mipmaps:
    enableMipMap: 0
  textureSettings:
    filterMode: 0
  platformSettings:
  - buildTarget: DefaultTexturePlatform
    textureCompression: 0
"""


def _default_metas(tree: Tree, place: str, pixel_art: bool = False) -> None:
    """Every other file gets a meta too, so Unity has nothing to invent on import; its
    guid comes from where the file lands, like the pack's own."""
    present = set(tree.order)
    for relative in list(tree.order):
        if relative.endswith(".meta") or relative + ".meta" in present:
            continue
        importer = IMPORTERS.get(PurePosixPath(relative).suffix.lower(), "DefaultImporter")
        settings = PIXEL_ART_TEXTURE if pixel_art and importer == "TextureImporter" else ""
        tree.write(
            relative + ".meta",
            f"fileFormatVersion: 2\nguid: {stable_hex('unity-asset', f'{place}/{relative}')}\n"
            f"{importer}:\n{settings}"
            "  externalObjects: {}\n  userData:\n  assetBundleName:\n  assetBundleVariant:\n",
        )


def metas_first(order: list[str]) -> list[str]:
    """Each meta immediately before its asset; the rest keep their order."""
    present = set(order)
    result: list[str] = []
    for relative in order:
        if relative.endswith(".meta") and relative[: -len(".meta")] in present:
            continue  # placed with its asset
        meta = relative + ".meta"
        if meta in present:
            result.append(meta)
        result.append(relative)
    return result
