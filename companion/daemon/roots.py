"""What may be registered as a project root: a real project folder, nothing wider.

Every path the daemon accepts (images to send, folders to write) must lie inside a
registered root, so a root of `/` or a home folder would open the whole disk to any
token holder. A root is refused when it is the filesystem's root, a home folder or one
that holds home folders, or a system folder; an engine's root must also look like that
engine's project (Godot: project.godot; Unity: Assets/ and ProjectSettings/)."""

from __future__ import annotations

import os
from pathlib import Path

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
ENGINE_MARKERS: dict[str, tuple[tuple[str, bool], ...]] = {
    # (name, is a folder)
    "godot": (("project.godot", False),),
    "unity": (("Assets", True), ("ProjectSettings", True)),
}


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
    for name, is_folder in ENGINE_MARKERS.get(engine, ()):
        marker = resolved / name
        if not (marker.is_dir() if is_folder else marker.is_file()):
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
        if "\x00" in text or not (resolved / text).resolve().is_relative_to(resolved):
            return f"{key}: {text} must stay inside the project {resolved}"
    return None
