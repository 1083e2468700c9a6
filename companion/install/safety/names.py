"""The one guard for names that come from outside: the service's `format`, a caller's
`name`, archive entries and unitypackage `pathname`s.

A downloaded output is named from our own table (FILE_SUFFIX): the service's `format` is
only looked up in it, never put into a path, and a format the table does not know gets
no file in the project at all (it is kept aside, see companion/jobs/landing/aside.py). Every
path is checked again at the moment of writing, after resolving symbolic links, to stay
inside the folder it is meant for."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection
from itertools import count
from pathlib import Path, PurePath, PurePosixPath

from companion.install.errors import UnsafeName
from companion.media import ENDS, FILE_SUFFIX, MAX_NAME_BYTES, MAX_NAME_CHARS, clean_name

DRIVE = re.compile(r"^[A-Za-z]:")
SHOWN = 80  # characters of a hostile string quoted in a message


def shown(text: str) -> str:
    """A string from outside, quoted for a message: escaped and cut short."""
    quoted = repr(text)
    return quoted if len(quoted) <= SHOWN else quoted[: SHOWN - 4] + "...'"


def numbered(name: str, n: int) -> str:
    """name_n, name cut first (by characters and by UTF-8 bytes) so the whole stays
    within what clean_name allows: `飛` * 53 + `_2` is not 161 bytes but `飛` * 52 + `_2`."""
    suffix = f"_{n}"
    base = name[: max(1, MAX_NAME_CHARS - len(suffix))]
    while len(base.encode()) + len(suffix) > MAX_NAME_BYTES and len(base) > 1:
        base = base[:-1]
    return clean_name(base.rstrip(ENDS) + suffix)


def free_name(
    wanted: str,
    used: Collection[str],
    target: Path,
    writes: Callable[[str], list[Path]] = lambda name: [],
) -> str:
    """wanted, or wanted_2, wanted_3, ...: the first no other job in target used (case
    folded: Windows and macOS fold it in file names), no file in target already carries
    (name.anything), and none of whose planned writes (writes(name)) exists."""
    folded = {u.casefold() for u in used}

    def taken(name: str) -> bool:
        if name.casefold() in folded or os.path.lexists(target / name):
            return True
        if any(os.path.lexists(p) for p in writes(name)):
            return True
        return target.is_dir() and any(target.glob(f"{name}.*"))

    if not taken(wanted):
        return wanted
    return next(c for c in (numbered(wanted, n) for n in count(2)) if not taken(c))


def output_file_name(fmt: str, name: str, page: int | None = None) -> str | None:
    """The file name of an output of a known format, or None for a format not in our table."""
    suffix = FILE_SUFFIX.get(fmt)
    if suffix is None:
        return None
    base = clean_name(name)
    return (base if page is None else f"{base}_p{page}") + suffix


def output_names(formats: list[str], name: str) -> list[str | None]:
    """File names by format, None for unknown formats; several of one format get _p0, _p1..."""
    counts: dict[str, int] = {}
    for fmt in formats:
        counts[fmt] = counts.get(fmt, 0) + 1
    seen: dict[str, int] = {}
    names: list[str | None] = []
    for fmt in formats:
        index = seen.get(fmt, 0)
        seen[fmt] = index + 1
        names.append(output_file_name(fmt, name, index if counts[fmt] > 1 else None))
    return names


def relative_path(name: str) -> PurePosixPath:
    """A relative path from outside, or UnsafeName if it could land anywhere else."""
    if not name or "\x00" in name:
        raise UnsafeName(f"{shown(name)}: empty or NUL in its name")
    unified = name.replace("\\", "/")
    if unified.startswith("/") or DRIVE.match(unified):
        raise UnsafeName(f"{shown(name)}: absolute path")
    parts = [p for p in unified.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise UnsafeName(f"{shown(name)}: climbs out with '..'")
    if not parts:
        raise UnsafeName(f"{shown(name)}: names no file")
    return PurePosixPath(*parts)


def confined(root: Path, path: str | PurePath) -> Path | None:
    """Where path (relative to root, or absolute) lands with every symbolic link on the
    way resolved, or None when that is outside root or the path holds a NUL: the one
    check that a path from outside, or a folder a link may turn, stays inside its root."""
    if "\x00" in str(path):
        return None
    base = root.resolve()
    landed = (base / path).resolve()
    return landed if landed.is_relative_to(base) else None


def inside(root: Path, relative: str | PurePosixPath) -> Path:
    """Where relative lands under root, checked now: every existing folder on the way is
    resolved (symbolic links followed) and must stay inside root, and the file itself
    must not be a link or a folder. Create missing folders with make_parents."""
    pure = relative_path(str(relative))
    base = root.resolve()
    parent = confined(base, pure.parent)
    if parent is None:
        raise UnsafeName(f"{shown(str(relative))}: leads outside {base} through a link")
    landed = parent / pure.name
    if landed.is_symlink():
        raise UnsafeName(f"{landed} is a symbolic link; it is left alone")
    if landed.is_dir():
        raise UnsafeName(f"{landed} is a folder where a file would go")
    return landed


def make_parents(root: Path, final: Path) -> None:
    """Create final's folders, then check again that no link took them outside root."""
    final.parent.mkdir(parents=True, exist_ok=True)
    if confined(root, final.parent) is None:
        raise UnsafeName(f"{final}: its folder leads outside {root.resolve()} through a link")
