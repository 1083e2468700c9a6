"""The editor plugins put into a user's project the engine's own way.

Godot: the addon is copied to `addons/companion/` and enabled in `project.godot`'s
`[editor_plugins]` (only that one line changes; every other setting stays byte for byte).
Unity: the package is embedded in `Packages/dev.companion.animate/` (never under
`Assets/`), which Unity loads without a manifest entry; an older `file:` entry for it in
`Packages/manifest.json` is taken out so the two never compete.

A record of what was copied (`.companion-install.json`, hashes of every file) lets a
later install update in place and say what changed, and lets uninstall remove exactly
what it put there: a file the user changed or added is never overwritten or removed."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any, Literal, NamedTuple

from companion.install.errors import PluginError
from companion.install.godot.plugin_cfg import GODOT_CFG, enabled_plugins, set_enabled
from companion.install.project import missing_marker
from companion.install.safety.plain_files import read_plain_text, sha256_plain

Engine = Literal["godot", "unity"]
ENGINES: tuple[Engine, ...] = ("godot", "unity")
RECORD = ".companion-install.json"
UNITY_NAME = "dev.companion.animate"


@dataclass
class Change:
    """What one install or uninstall did, file by file (paths relative to the project)."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # the user's, left alone
    settings: list[str] = field(default_factory=list)  # project.godot / manifest.json
    version_before: str | None = None
    version: str | None = None

    @property
    def nothing(self) -> bool:
        return not (self.added or self.updated or self.removed or self.settings)

    def as_json(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "updated": self.updated,
            "removed": self.removed,
            "kept": self.kept,
            "settings": self.settings,
            "version_before": self.version_before,
            "version": self.version,
        }


def source(engine: Engine) -> Path:
    """The plugin as shipped inside this package (a wheel or a checkout alike)."""
    shipped = files("companion.engine_plugins")
    with as_file(shipped) as folder:
        path = Path(folder) / ("godot/addons/companion" if engine == "godot" else "unity")
    if not path.is_dir():
        raise PluginError(f"this installation of companion lacks its {engine} plugin ({path})")
    return path


def destination(engine: Engine, project: Path) -> Path:
    if engine == "godot":
        return project / "addons" / "companion"
    return project / "Packages" / UNITY_NAME


def check_project(engine: Engine, project: Path) -> Path:
    """The project's folder, resolved, or PluginError saying why it is not one."""
    if project.is_file():
        # project.godot itself, or a file beside it: the folder holding it was meant.
        raise PluginError(
            f"{project} is a file; give the {engine} project's folder"
            + (f" ({project.parent})" if project.name == "project.godot" else "")
        )
    if not project.is_dir():
        raise PluginError(f"{project}: no such folder; give the {engine} project's folder")
    root = project.resolve()
    if missing_marker(root, engine) is None:
        return root
    if engine == "godot":
        raise PluginError(
            f"{root} is not a Godot project (no project.godot in it); give the folder "
            "that holds project.godot"
        )
    raise PluginError(
        f"{root} is not a Unity project (it needs Assets/ and ProjectSettings/); give "
        "the folder that holds them"
    )


def version_of(engine: Engine, folder: Path) -> str | None:
    """The plugin version a folder holds (plugin.cfg or package.json), None if none."""
    try:
        if engine == "godot":
            found = re.search(
                r'^version\s*=\s*"([^"]*)"', read_plain_text(folder / "plugin.cfg"), re.MULTILINE
            )
            return found.group(1) if found else None
        value = json.loads(read_plain_text(folder / "package.json")).get("version")
        return str(value) if value is not None else None
    except (OSError, ValueError):
        return None


def _digest(path: Path) -> str:
    return sha256_plain(path)  # a user's file there may be a FIFO or a link to /dev/zero


def _tree(folder: Path) -> dict[str, Path]:
    """Every file below folder by its relative POSIX name (the record itself and Python
    caches excluded), and every link or other entry that is not a folder: a cloned
    repository can put a link to /dev/zero or a FIFO where a file of ours goes."""
    found: dict[str, Path] = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        entry = path.is_symlink() or not path.is_dir()
        if entry and name != RECORD and "__pycache__" not in path.parts:
            found[name] = path
    return found


def _plain(path: Path) -> bool:
    """A regular file, not a link: the only kind of entry ever read, replaced or removed."""
    return not path.is_symlink() and path.is_file()


def _editor_made(name: str, base_names: set[str] | dict[str, Any]) -> bool:
    """A file Godot makes beside one of ours (`plugin.gd.uid`, `icon.png.import`): it goes
    and stays with that file."""
    for suffix in (".uid", ".import"):
        if name.endswith(suffix) and name[: -len(suffix)] in base_names:
            return True
    return False


def _record(folder: Path) -> dict[str, str]:
    try:
        value = json.loads(read_plain_text(folder / RECORD))
        return {str(k): str(v) for k, v in value["files"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class _Trees(NamedTuple):
    """What an install compares: dest's record, and the shipped and installed files."""

    record: dict[str, str]
    ours: dict[str, Path]
    present: dict[str, Path]

    @classmethod
    def read(cls, src: Path, dest: Path) -> _Trees:
        return cls(_record(dest), _tree(src), _tree(dest) if dest.is_dir() else {})


def _clashes(engine: Engine, dest: Path, rel: str, trees: _Trees) -> list[str]:
    """The files (relative to the project) an install would have to overwrite though the
    user changed them (or made them where ours go): each stops it."""
    theirs_before, ours, present = trees
    ours_by_name = version_of(engine, dest) is not None and not theirs_before
    clashes = [f"{rel}/{n}" for n in ours if n not in present and (dest / n).is_dir()]
    for name, path in present.items():
        recorded = theirs_before.get(name)
        if name not in ours:
            continue
        if not _plain(path):  # a link, a FIFO, a device: never read, never replaced
            clashes.append(f"{rel}/{name}")
            continue
        same = _digest(path) == _digest(ours[name])
        if same or (recorded is not None and recorded == _digest(path)) or ours_by_name:
            continue
        clashes.append(f"{rel}/{name}")
    return clashes


def _copy(engine: Engine, src: Path, dest: Path, rel: str, change: Change) -> None:
    """Make dest the plugin in src: files the record says are ours are updated or removed;
    a file the user changed (or made, where ours would go) stops the install before any
    file is written."""
    trees = _Trees.read(src, dest)
    theirs_before, ours, present = trees
    clashes = _clashes(engine, dest, rel, trees)
    if clashes:
        raise PluginError(
            "these files were changed after companion installed them (or are not its): "
            + ", ".join(clashes)
            + "; move them away, then run the same command again"
        )
    written: dict[str, str] = {}
    for name, path in ours.items():
        target = dest / name
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        written[name] = digest
        if name in present and _digest(present[name]) == digest:
            continue
        (change.updated if name in present else change.added).append(f"{rel}/{name}")
        _write_atomic(target, data)
    for name, path in present.items():
        if name in ours or _editor_made(name, ours):
            continue
        if (
            _plain(path) and name in theirs_before and theirs_before[name] == _digest(path)
        ) or _editor_made(name, theirs_before):
            path.unlink()
            change.removed.append(f"{rel}/{name}")
        else:
            change.kept.append(f"{rel}/{name}")
    _write_atomic(
        dest / RECORD,
        (
            json.dumps({"version": version_of(engine, src), "files": written}, indent=1) + "\n"
        ).encode(),
    )


def _remove(dest: Path, rel: str, change: Change) -> None:
    recorded = _record(dest)
    for name, path in _tree(dest).items():
        if _plain(path) and (recorded.get(name) == _digest(path) or _editor_made(name, recorded)):
            path.unlink()
            change.removed.append(f"{rel}/{name}")
        else:
            change.kept.append(f"{rel}/{name}")
    (dest / RECORD).unlink(missing_ok=True)
    # Empty folders go, from the deepest up; a folder holding a user's file stays.
    for folder in sorted((p for p in dest.rglob("*") if p.is_dir()), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()
    if dest.is_dir() and not any(dest.iterdir()):
        dest.rmdir()


# --- project.godot ---------------------------------------------------------------------


def _godot_settings(root: Path, enable: bool, change: Change) -> None:
    path = root / "project.godot"
    before = read_plain_text(path)
    after = set_enabled(before, enable)
    if after != before:
        _write_atomic(path, after.encode("utf-8"))
        change.settings.append(
            f"project.godot: {'enabled' if enable else 'disabled'} {GODOT_CFG} in [editor_plugins]"
        )


# --- Packages/manifest.json ------------------------------------------------------------


def _unity_manifest(root: Path, change: Change) -> None:
    """No manifest entry competes with the embedded package (an older `file:` one to a
    checkout, say); everything else in the manifest stays."""
    path = root / "Packages" / "manifest.json"
    if not path.is_file():
        return
    try:
        manifest = json.loads(read_plain_text(path))
    except ValueError as exc:
        raise PluginError(f"{path} is not valid JSON ({exc}); fix it, then run again") from exc
    dependencies = manifest.get("dependencies") if isinstance(manifest, dict) else None
    if isinstance(dependencies, dict) and UNITY_NAME in dependencies:
        old = dependencies.pop(UNITY_NAME)
        _write_atomic(path, (json.dumps(manifest, indent=2) + "\n").encode("utf-8"))
        change.settings.append(
            f"Packages/manifest.json: took out {UNITY_NAME}: {old} (the embedded copy is used)"
        )


# --- the three verbs -------------------------------------------------------------------


def install(engine: Engine, project: Path, src: Path | None = None) -> tuple[Path, Change]:
    root = check_project(engine, project)
    src = src or source(engine)
    dest = destination(engine, root)
    change = Change(version_before=version_of(engine, dest), version=version_of(engine, src))
    rel = dest.relative_to(root).as_posix()
    if engine == "unity":
        _unity_manifest_check(root)
    _copy(engine, src, dest, rel, change)
    if engine == "godot":
        _godot_settings(root, True, change)
    else:
        _unity_manifest(root, change)
    return root, change


def _unity_manifest_check(root: Path) -> None:
    path = root / "Packages" / "manifest.json"
    if path.is_file():
        try:
            json.loads(read_plain_text(path))
        except ValueError as exc:
            raise PluginError(f"{path} is not valid JSON ({exc}); fix it, then run again") from exc


def uninstall(engine: Engine, project: Path) -> tuple[Path, Change]:
    root = check_project(engine, project)
    dest = destination(engine, root)
    change = Change(version_before=version_of(engine, dest))
    if engine == "godot":
        _godot_settings(root, False, change)
    if dest.is_dir():
        _remove(dest, dest.relative_to(root).as_posix(), change)
    addons = root / "addons"
    if engine == "godot" and addons.is_dir() and not any(addons.iterdir()):
        addons.rmdir()  # install made it; nothing else is in it
    return root, change


def status(engine: Engine, project: Path) -> dict[str, Any]:
    root = check_project(engine, project)
    dest = destination(engine, root)
    installed = version_of(engine, dest)
    shipped = version_of(engine, source(engine))
    recorded = _record(dest)
    # Files of ours that are gone or differ from what was installed (the user's own files
    # beside them are theirs, not a change).
    changed = sorted(
        name
        for name, digest in recorded.items()
        if not (dest / name).is_file() or _digest(dest / name) != digest
    )
    rel = dest.relative_to(root).as_posix()
    found: dict[str, Any] = {
        "engine": engine,
        "project": str(root),
        "path": str(dest),
        "installed": installed,
        "shipped": shipped,
        "current": installed is not None and installed == shipped and not changed,
        "changed_files": changed,
        # Those an install would stop at (it never overwrites them): to be moved away first
        "blocking_files": _clashes(engine, dest, rel, _Trees.read(source(engine), dest)),
    }
    if engine == "godot":
        text = read_plain_text(root / "project.godot")
        found["enabled"] = GODOT_CFG in enabled_plugins(text)
    return found


def copy_tree(src: Path, dest: Path) -> None:
    """A plain copy of a plugin folder (packing); the install record is not carried."""
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(RECORD, "__pycache__"))
