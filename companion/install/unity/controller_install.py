"""A character's Animator Controller into a Unity project: `FOLDER/NAME.controller` made
once, with a `.meta` (NativeFormatImporter, a guid no other asset of the project holds),
and from then on only merged (unity_controller adds states for new moves and keeps all
else of the user's). Nothing is ever overwritten: the file is replaced through the
install tree's moves, and only while it still holds exactly the text the merge read, so
an edit saved in Unity meanwhile is refused, not lost. An existing meta is the user's and
stays as it is (its guid is what their scenes and prefabs refer to)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from companion.install.errors import NotInstallable
from companion.install.safety.ownership import Owner
from companion.install.tree import Tree, path_lock, read_with_digest, sha256_of
from companion.install.unity.controller import CONTROLLER_ID, ControllerMove, merge_controller
from companion.install.unity.files import asset_path, check_target, project_guids
from companion.media import stable_hex


class _MergeGuard:
    """Lets the controller be replaced only while it holds the text merged from; every
    other existing file is refused."""

    def __init__(self, controller: Path, read_sha: str | None, owner: Owner | None) -> None:
        self.controller, self.read_sha, self.owner = controller, read_sha, owner

    def refusal(self, final: Path) -> str | None:
        if not os.path.lexists(final):
            return None
        if final == self.controller and self.read_sha is not None:
            if final.is_symlink() or not final.is_file():
                return f"{final} is not a plain file"
            if sha256_of(final) != self.read_sha:
                return f"{final} changed while it was merged; run again to merge the new text"
            return None
        return f"{final} already exists"

    def claim(self, final: Path, sha256: str | None = None) -> None:
        if self.owner is not None:
            self.owner.claim(final, sha256)


def controller_meta(guid: str) -> str:
    return (
        f"fileFormatVersion: 2\nguid: {guid}\nNativeFormatImporter:\n"
        f"  externalObjects: {{}}\n  mainObjectFileID: {CONTROLLER_ID}\n"
        "  userData: \n  assetBundleName: \n  assetBundleVariant: \n"
    )


def _fresh_guid(project_root: Path, landing: str) -> str:
    guid = stable_hex("unity-asset", landing)
    if guid in project_guids(project_root):  # another asset holds it: derive a new one
        guid = stable_hex("unity-moved", guid, landing)
    return guid


def install_controller(
    project_root: Path,
    folder: Path,
    name: str,
    moves: Sequence[ControllerMove],
    owner: Owner | None = None,
) -> Path:
    """Make or merge FOLDER/NAME.controller (FOLDER under the project's Assets/) and
    return its path; owner, when given, records what was written."""
    check_target(project_root, folder)
    with path_lock(folder / f"{name}.controller"):
        return _install(project_root, folder, name, moves, owner)


def _install(
    project_root: Path,
    folder: Path,
    name: str,
    moves: Sequence[ControllerMove],
    owner: Owner | None,
) -> Path:
    relative = f"{name}.controller"
    final = folder / relative
    existing: str | None = None
    read_sha: str | None = None
    if os.path.lexists(final):
        if final.is_symlink() or not final.is_file():
            raise NotInstallable(f"{final} is not a plain file; it is left alone")
        existing, read_sha = read_with_digest(final)  # one read: the digest is of the text merged
    text = merge_controller(existing, name, moves)
    needs_meta = not os.path.lexists(final.with_name(relative + ".meta"))
    if text == existing and not needs_meta:
        return final
    with tempfile.TemporaryDirectory(dir=project_root, prefix=".companion-controller-") as work:
        tree = Tree(Path(work) / "tree")
        if needs_meta:
            landing = asset_path(project_root, folder, relative)
            tree.write(relative + ".meta", controller_meta(_fresh_guid(project_root, landing)))
        if text != existing:
            tree.write(relative, text)
        refused = tree.clashes(folder, _MergeGuard(final, read_sha, owner))
        if refused:
            raise NotInstallable(f"{refused[0]}: it is never replaced")
        tree.apply(folder, guard=_MergeGuard(final, read_sha, owner))
    return final
