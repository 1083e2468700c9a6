"""What an install will write, known before anything is paid: the files of a name in a
target for the formats asked, and which of them are not the companion's to replace (a
SpriteFrames the user extended, a sheet they edited), and whether the target folder
can take them at all. A job that would meet one is refused before it is sent, instead of
failing after the service charged for it."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

from companion.install.godot.sprite_merge import mergeable
from companion.install.replaced_set import older_set
from companion.install.safety.ownership import Owner
from companion.install.unity import anim_merge
from companion.media import FILE_SUFFIX
from companion.store import Store

PACKS = {"godot_pack", "unity_pack", "unity_meta"}
ENGINES = ("godot", "unity")  # the installs that keep one set a name (into_engine)


def planned(engine: str, target: Path, name: str, formats: list[str]) -> list[Path]:
    """The files an install of these formats puts in target under name."""
    names: list[str] = []
    sheet = "spritesheet" in formats
    if engine == "godot" and ("godot_pack" in formats or (sheet and "spritesheet_json" in formats)):
        names += [f"{name}.png", f"{name}.json", f"{name}.tres"]
    if engine == "unity" and ({"unity_pack", "unity_meta"} & set(formats)):
        names += [f"{name}.png", f"{name}.png.meta", f"{name}.anim"]
    for fmt in formats:
        if fmt in FILE_SUFFIX and not (engine in ("godot", "unity") and fmt in PACKS):
            names.append(f"{name}{FILE_SUFFIX[fmt]}")
    return [target / n for n in dict.fromkeys(names)]


def conflicts(store: Store, name: str, paths: list[Path]) -> list[dict[str, str]]:
    """Each planned path the companion may not replace, with why."""
    return foreseen(store, name, paths)[0]


def foreseen(
    store: Store, name: str, paths: list[Path], engine: str = "other"
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The planned paths the companion may not replace, with why (path, reason), and
    those an earlier job of this name wrote and that are unchanged since, which the
    install replaces without asking, as a re-import would (path, job, name), then those
    of that earlier set it removes because the new one does not hold them (path, job,
    name, removed: "true"; an install into a Godot or Unity project does that: see
    one_set.drop_leftovers). One pass: only files that exist and that the store recorded
    are hashed, each once."""
    owner = Owner(store, "quote", name)
    found: list[dict[str, str]] = []
    earlier: list[dict[str, str]] = []
    for path in paths:
        reason = owner.refusal(path)
        # A SpriteFrames, or a Unity clip or meta the companion wrote, is merged instead.
        if reason is not None and not (mergeable(path) or anim_merge.mergeable(path, owner)):
            found.append({"path": str(path), "reason": reason})
        elif reason is None and path.is_file():
            # Exists and may be replaced: the store recorded it, unchanged, for this name.
            known = store.written_file(str(path))
            if known is not None:
                item = {"path": str(path), "job": known.job_id}
                if known.name:
                    item["name"] = known.name
                earlier.append(item)
    if engine in ENGINES:
        earlier += _leftovers(store, owner, paths)
    return found, earlier


def _leftovers(store: Store, owner: Owner, paths: list[Path]) -> list[dict[str, str]]:
    """The files of owner's name the companion wrote beside the planned ones, unchanged
    since, that the new set does not hold: the install removes them."""
    gone: list[dict[str, str]] = []
    for folder in {p.parent for p in paths}:
        for record in older_set(store, owner.name, folder, set(paths)):
            path = Path(record.path)
            if path.is_file() and owner.refusal(path) is None:
                gone.append({"path": record.path, "job": record.job_id, "name": owner.name})
                gone[-1]["removed"] = "true"
    return gone


def folder_refusal(folder: Path, label: str) -> str | None:
    """Why folder cannot take the outputs (a sentence starting with label and saying what
    to do), or None: it exists as a folder that takes a file, or it can be made. Missing
    folders are made to prove it and removed again, so nothing is left behind."""
    if folder.exists() and not folder.is_dir():
        return f"{label}: is a file; give a folder for the outputs"
    resolved = folder.resolve()
    missing: list[Path] = []
    probe = resolved
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    if not probe.is_dir():
        return f"{label}: {probe} is a file; give a folder for the outputs"
    made: list[Path] = []
    try:
        for step in reversed(missing):
            step.mkdir()
            made.append(step)
        with tempfile.TemporaryFile(dir=resolved, prefix=".companion-probe-"):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return f"{label}: cannot write there ({reason}); choose a folder you can write to"
    finally:
        for step in reversed(made):
            with contextlib.suppress(OSError):
                step.rmdir()
    return None
