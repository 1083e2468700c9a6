"""The project registry: which folders are projects, and the rules for registering one,
whoever asks (the daemon's API, `companion projects add` with no daemon running, the
projects listed in config.yaml).

What may be registered as a project root: a real project folder, nothing wider. Every
path the daemon accepts (images to send, folders to write) must lie inside a registered
root, so a root of `/` or a home folder would open the whole disk to any
token holder. A root is refused when it is the filesystem's root, a home folder or one
that holds home folders, or a system folder; an engine's root must also look like that
engine's project (Godot: project.godot; Unity: Assets/ and ProjectSettings/)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from companion.daemon.errors import Refused
from companion.install import (
    NotInstallable,
    check_unity_target,
    confined,
    default_target,
    engine_of,
    folder_refusal,
    missing_marker,
)
from companion.media import folder_text_refusal
from companion.store import Store

log = logging.getLogger("companion.daemon")

# Folders that are never a project themselves (their subfolders may be).
SYSTEM_FOLDERS = frozenset(
    {
        "/tmp",  # noqa: S108  (refused as a root, never written)
        "/var",
        "/var/tmp",  # noqa: S108
        "/opt",
        "/srv",
        "/mnt",
        "/media",
        "/home",
        "/Users",
        "/Volumes",
        "/private",
        "/private/tmp",
        "/private/var",
        "/Applications",
        "/Library",
        "/System",
    }
)
# Trees where nothing is a project.
SYSTEM_TREES = (
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib64",
    "/proc",
    "/run",
    "/sbin",
    "/sys",
    "/usr",
)
WINDOWS_TREES = ("windows", "program files", "program files (x86)", "programdata")


def expand(text: str) -> Path:
    """~ and ~user expanded where they can be; an unknown user leaves the text as it is
    (then it is not absolute, and refused as such)."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        return Path(text)


def root_refusal(root: Path, engine: str) -> str | None:
    """Why root cannot be a project root (a sentence naming `root` and what to do)."""
    if not root.is_absolute() or not root.is_dir():
        return "root: must be an existing absolute folder"
    resolved = root.resolve()
    folder = str(resolved)
    if resolved == Path(resolved.anchor):
        return f"root: {folder} is the whole disk; give the project's own folder"
    homes = {expand("~").resolve()} if expand("~").is_absolute() else set()
    if os.environ.get("HOME"):
        homes.add(Path(os.environ["HOME"]).resolve())
    for home in homes:
        if resolved == home or resolved in home.parents:
            return f"root: {folder} is a home folder; give the project's own folder inside it"
    posix = resolved.as_posix()
    if posix in SYSTEM_FOLDERS or any(
        posix == tree or posix.startswith(tree + "/") for tree in SYSTEM_TREES
    ):
        return f"root: {folder} is a system folder; give the project's own folder"
    parts = [p.lower() for p in resolved.parts[1:2]]
    if resolved.drive and parts and parts[0] in WINDOWS_TREES:
        return f"root: {folder} is a system folder; give the project's own folder"
    missing = missing_marker(resolved, engine)
    if missing is not None:
        name, is_folder = missing
        kind = "folder" if is_folder else "file"
        return (
            f"root: {folder} is not a {engine.capitalize()} project (no {name} {kind} "
            f"in it); give the folder that holds {name}"
        )
    return None


def folders_refusal(root: Path, settings: dict[str, object]) -> str | None:
    """Why a project's inbox or target would leave its root, if one would."""
    resolved = root.resolve()
    for key in ("inbox", "target"):
        value = settings.get(key)
        if value is None:
            continue
        text = str(value)
        unusable = folder_text_refusal(text)  # the same rules as a request's target_folder
        if unusable is not None:
            return f"{key}: {unusable}"
        if confined(resolved, text) is None:
            return f"{key}: {text} must stay inside the project {resolved}"
    return None


def engine_refusal(engine: str, root: Path, target: Path) -> str | None:
    """Why the engine could not see files in target, if it could not."""
    if engine == "unity":
        try:
            check_unity_target(root, target)
        except NotInstallable as exc:
            return str(exc)
    return None


def target_refusal(root: Path, target: Path) -> str | None:
    """Why target cannot take the outputs (it is, or lies under, a file; it cannot be
    written), a sentence naming target_folder; None when it can. It touches the disk: run
    it off the event loop."""
    where = target.relative_to(root).as_posix() if target.is_relative_to(root) else target
    return folder_refusal(target, f"target_folder: {where}")


def merge_defaults(kept: Any, given: dict[str, Any]) -> dict[str, Any]:
    """A project's drop defaults registered again: each key given (prompt, export, video,
    selection, ...) replaces that key whole, one given as null is dropped, the others are
    kept."""
    merged = {**(kept if isinstance(kept, dict) else {}), **given}
    return {k: v for k, v in merged.items() if v is not None}


def find(store: Store, root: str) -> dict[str, Any] | None:
    """The registered project at root (~ expanded, links resolved), if there is one."""
    resolved = str(expand(root).resolve())
    return next((p for p in store.projects() if p["root"] == resolved), None)


def register(store: Store, root: Path, given: dict[str, Any]) -> dict[str, Any]:
    """Register root, or register it again: only what is given (engine, target, inbox,
    poll, defaults) changes, defaults merge one level deep, every folder stays inside the
    root and where its engine sees it. Returns the project as now registered."""
    existing = find(store, str(root)) if root.is_absolute() else None
    # Not given: as registered before, else the engine whose project the folder is.
    engine = str(
        given.get("engine") or (existing or {}).get("engine") or engine_of(root) or "other"
    )
    refusal = root_refusal(root, engine)
    if refusal:
        raise Refused(refusal)
    settings = {
        k: v
        for k, v in given.items()
        if k in ("target", "inbox", "poll", "defaults") and v is not None
    }
    if "defaults" in settings:
        settings["defaults"] = merge_defaults(
            (existing or {}).get("defaults"), settings["defaults"]
        )
    resolved = root.resolve()
    merged = {**(existing or {}), **settings}
    target_text = str(merged.get("target") or default_target(engine))
    target = confined(resolved, target_text)
    if target is None:
        raise Refused("target: must stay inside the project")
    refusal = engine_refusal(engine, resolved, target)
    if refusal:
        raise Refused(f"target: {refusal}")
    inbox = merged.get("inbox")
    if inbox is not None and confined(resolved, str(inbox)) is None:
        raise Refused("inbox: must stay inside the project")
    settings.setdefault("target", target_text)
    store.add_project(str(resolved), engine, settings)
    return find(store, str(resolved)) or {}


def forget(store: Store, root: str) -> dict[str, Any] | None:
    """Forget a registered project (its files and jobs stay); None if it was unknown."""
    project = find(store, root) if "\x00" not in root and expand(root).is_absolute() else None
    if project is None or not store.remove_project(str(project["root"])):
        return None
    return project


def register_listed(store: Store, projects: list[dict[str, Any]]) -> None:
    """Register config.yaml's projects; a refused one is logged and the others taken."""
    for project in projects:
        given = expand(str(project["root"]))
        kind = project.get("engine")
        refusal = root_refusal(given, str(kind or "other")) or folders_refusal(given, project)
        if refusal:
            log.error("config.yaml project skipped: %s", refusal)
            continue
        store.add_project(
            str(given.resolve()),
            str(kind) if kind else None,
            {k: v for k, v in project.items() if k not in ("root", "engine")},
        )
