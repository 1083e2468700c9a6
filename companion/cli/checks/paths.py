"""The command line's checks on files before anything is spent or written: inputs that
can be read, an outputs folder that takes a file (proved, then left as it was), output
names that are clean and never land on an input or a folder."""

from __future__ import annotations

import os
from pathlib import Path

from companion.cli.errors import InputFailure, UsageError


def input_file(path: Path, flag: str, kind: str = "an image file (PNG, JPEG, WebP)") -> Path:
    """An input named on the command line: a readable file (exit 1 if not)."""
    if path.is_dir():
        raise InputFailure(f"{flag} {path}: is a folder; give {kind}")
    if not path.exists():
        raise InputFailure(f"{flag} {path}: no such file")
    if not os.access(path, os.R_OK):
        raise InputFailure(f"{flag} {path}: cannot be read; check its permissions")
    return path.resolve()


def output_folder(out: Path, flag: str = "--out") -> Path:
    """A folder the outputs can go into: one that exists and takes a file, or one that
    can be made (proved, then left as it was; the daemon checks its target the same way)."""
    from companion.install import folder_refusal

    refusal = folder_refusal(out, f"{flag} {out}")
    if refusal is not None:
        raise UsageError(refusal)
    return out.resolve()


def never_over_a_source(outputs: list[Path], sources: list[Path]) -> None:
    """No output may land on a file the command reads."""
    resolved = {s.resolve(): s for s in sources}
    for path in outputs:
        source = resolved.get(path.resolve())
        if source is not None:
            raise UsageError(
                f"--out/--name: the output {path.name} would replace the input {source}; "
                "choose another --name or --out"
            )


def existing_outputs(outputs: list[Path]) -> list[Path]:
    """Files the outputs will replace; folders in their way are refused."""
    for path in outputs:
        if path.is_dir():
            raise UsageError(
                f"--out/--name: {path} is a folder where an output file goes; "
                "choose another --name or --out"
            )
    return [p for p in outputs if p.exists()]


def base_name(name: str | None, source: Path) -> str:
    from companion.media import clean_name, is_clean_name

    if name is None:
        return clean_name(source.stem)
    if not is_clean_name(name):
        raise UsageError(
            f"--name {name!r} holds characters a file system or engine refuses "
            f"(or is too long); use {clean_name(name)!r}"
        )
    return name


def output_paths(out: Path, name: str, formats: list[str]) -> list[Path]:
    from companion.media import FILE_SUFFIX

    return [out / f"{name}{FILE_SUFFIX[f]}" for f in formats]
