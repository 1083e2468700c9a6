"""Names of taken drops: a source in `inbox/.processing/` carries a time prefix before
its original name, its sidecar the same prefix; done/ and failed/ names are made free."""

from __future__ import annotations

from glob import escape as glob_escape
from pathlib import Path


def exists(path: Path) -> bool:
    """Whether anything is at path, a dangling link included."""
    try:
        path.lstat()
    except FileNotFoundError:
        return False
    return True


def original(taken: Path) -> str:
    """The name a taken source had in the inbox."""
    return taken.name.split("-", 1)[-1] if taken.parent.name == ".processing" else taken.name


def sidecar_beside(source: Path, stem: str) -> Path:
    """The sidecar a taken picture claimed: the same .processing prefix, its stem."""
    prefix = source.name.split("-", 1)[0] + "-" if source.parent.name == ".processing" else ""
    return source.with_name(f"{prefix}{stem}.yaml")


def has_picture(sidecar: Path) -> bool:
    stem = sidecar.name[: -len(".yaml")]
    return any(
        p != sidecar and p.stem == stem for p in sidecar.parent.glob(f"{glob_escape(stem)}.*")
    )


def free(path: Path, also: str | None = None) -> Path:
    """path, or path.1, path.2, ... : the first name free (with the `also` suffix free
    too, for a picture that brings its sidecar)."""
    candidate, n = path, 1
    while exists(candidate) or (also is not None and exists(candidate.with_suffix(also))):
        candidate = path.with_name(f"{path.stem}.{n}{path.suffix}")
        n += 1
    return candidate
