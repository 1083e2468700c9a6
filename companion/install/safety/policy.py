"""What an engine pack may bring into a project: the kinds of file such a pack legitimately
holds (pictures, the engine's animation resources, metas, JSON), never code, assemblies,
executables or project settings. Godot runs `@tool` scripts in the editor and Unity
compiles and runs editor scripts on import, so one planted script is code execution on
the user's machine: a pack carrying any such file is refused whole, naming the file."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from companion.install.errors import NotInstallable
from companion.install.safety.names import shown

PICTURES = frozenset({".png", ".jpg", ".jpeg", ".webp", ".tga", ".gif"})
ALLOWED: dict[str, frozenset[str]] = {
    "godot": PICTURES | {".tres", ".tscn", ".res", ".json", ".txt"},
    "unity": PICTURES
    | {
        ".meta",
        ".anim",
        ".controller",
        ".overrideController",
        ".asset",
        ".prefab",
        ".mat",
        ".json",
        ".txt",
        ".plist",
    },
}
SCRIPTS = frozenset(
    {
        ".gd",
        ".cs",
        ".js",
        ".ts",
        ".boo",
        ".py",
        ".lua",
        ".sh",
        ".bat",
        ".cmd",
        ".ps1",
        ".gdshader",
        ".shader",
        ".hlsl",
        ".cginc",
        ".compute",
    }
)
BINARIES = frozenset(
    {
        ".dll",
        ".so",
        ".dylib",
        ".exe",
        ".bundle",
        ".jar",
        ".aar",
        ".a",
        ".lib",
        ".pdb",
        ".mdb",
        ".winmd",
        ".gdextension",
        ".gdns",
        ".gdnlib",
        ".framework",
    }
)
SETTINGS_FILES = frozenset({"project.godot", "override.cfg", "export_presets.cfg"})
SETTINGS_SUFFIXES = frozenset({".asmdef", ".asmref", ".rsp", ".cfg", ".godot", ".import"})
SETTINGS_FOLDERS = frozenset({"ProjectSettings", "Packages", "addons", "Library", "UserSettings"})

# Godot resources and scenes can embed or attach scripts; a pack's resources never need to.
GODOT_SCRIPT = re.compile(
    r'type\s*=\s*"[^"]*(Script|GDExtension)[^"]*"|^\s*script(/source)?\s*=|'
    r'path\s*=\s*"[^"]*\.(gd|cs|gdextension|gdns|dll|so|dylib)"',
    re.MULTILINE | re.IGNORECASE,
)
GODOT_BINARY_SCRIPT = (b"Script", b"script/source", b".gd\x00", b".cs\x00")


def refusal(engine: str, inside: PurePosixPath) -> str | None:
    """Why a pack may not bring this file into a project, or None when it may."""
    suffix = inside.suffix.lower()
    name = inside.as_posix()
    if any(part.startswith(".") for part in inside.parts):
        return f"{shown(name)} is a hidden file or folder"
    if suffix in SCRIPTS:
        return f"{shown(name)} is a script (the editor would run it)"
    bundled = any(p.lower().endswith((".bundle", ".framework")) for p in inside.parts)
    if suffix in BINARIES or bundled:
        return f"{shown(name)} is an assembly or executable"
    if (
        inside.name in SETTINGS_FILES
        or suffix in SETTINGS_SUFFIXES
        or any(part in SETTINGS_FOLDERS for part in inside.parts[:-1])
    ):
        return f"{shown(name)} is project settings or a package manifest"
    allowed = ALLOWED.get(engine)
    if allowed is not None and suffix not in {s.lower() for s in allowed}:
        return f"{shown(name)} is not a kind of file a {engine} pack holds"
    return None


def check(engine: str, inside: PurePosixPath, pack: str) -> None:
    reason = refusal(engine, inside)
    if reason is not None:
        raise NotInstallable(f"{pack} was refused: {reason}; nothing of it was installed")


def check_godot_resource(inside: PurePosixPath, data: bytes, pack: str) -> None:
    """A Godot resource or scene from a pack must not carry or attach a script."""
    if inside.suffix.lower() == ".res":
        found = any(token in data for token in GODOT_BINARY_SCRIPT)
    else:
        found = GODOT_SCRIPT.search(data.decode("utf-8", errors="replace")) is not None
    if found:
        raise NotInstallable(
            f"{pack} was refused: {shown(inside.as_posix())} carries or attaches a script "
            "(the editor would run it); nothing of it was installed"
        )
