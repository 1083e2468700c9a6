"""Putting a downloaded output into its target as it is, under the name our table gave it:
checked inside the target at the moment of the move, and never over a file the guard
says may not be replaced; such a file is left alone and the output goes beside it under
a fresh name (NAME-2.EXT, NAME-3.EXT ...), so a paid output is never lost either."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from companion.install.errors import LostError, NotInstallable, UnsafeName
from companion.install.safety.names import inside, make_parents
from companion.install.tree import Guard, sha256_of

MAX_ASIDE = 100


@dataclass(frozen=True)
class Placed:
    path: Path
    refused: str | None  # why the output's own name could not be used, if it could not


def candidates(file_name: str) -> list[str]:
    pure = PurePosixPath(file_name)
    suffixes = "".join(pure.suffixes)
    stem = pure.name[: len(pure.name) - len(suffixes)] if suffixes else pure.name
    aside = [str(pure.with_name(f"{stem}-{n}{suffixes}")) for n in range(2, MAX_ASIDE)]
    return [file_name, *aside]


def place(
    target: Path, file_name: str, staged: Path | None, sha256: str | None, guard: Guard
) -> Placed:
    """Move staged into target as file_name (or beside); safe to call again after a crash,
    when the staged file is gone and the moved one is found by its sha256."""
    refused: str | None = None
    pending = staged is not None and staged.exists()
    for candidate in candidates(file_name):
        try:
            final = inside(target, candidate)
        except UnsafeName as exc:
            raise NotInstallable(str(exc)) from exc
        exists = os.path.lexists(final)
        if not pending:
            if exists and final.is_file() and sha256 and sha256_of(final) == sha256:
                guard.claim(final, sha256)
                return Placed(final, refused)
            if not exists:
                raise LostError(f"{file_name} was lost before it was installed")
            refused = refused or guard.refusal(final)
            continue
        reason = guard.refusal(final)
        if reason is None:
            assert staged is not None
            try:
                make_parents(target, final)
                final = inside(target, candidate)
            except UnsafeName as exc:
                raise NotInstallable(str(exc)) from exc
            reason = guard.refusal(final)  # checked again at the moment of writing
            if reason is None:
                staged.replace(final)  # atomic on one filesystem: whole file or nothing
                guard.claim(final, sha256)  # the download's digest: no second read
                return Placed(final, refused)
        refused = refused or reason
    raise NotInstallable(f"no free name for {file_name} in {target}")
