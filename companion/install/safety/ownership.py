"""Which files in a project the companion may replace: only those it wrote itself (by the
durable record of path and sha256 in the store), unchanged since, and written for the
same animation (the same job, or a job of the same name re-made into the same place).
A file the user made, or changed, or one holding another animation's output, is never
replaced: the install is refused naming it (see the README)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from companion.install.tree import sha256_of


class Written(Protocol):
    sha256: str
    job_id: str
    name: str


class Record(Protocol):
    def written_file(self, path: str) -> Written | None: ...

    def record_written(self, path: str, sha256: str, job_id: str, name: str) -> None: ...


@dataclass(frozen=True)
class Owner:
    """The job that is writing; record is None where nothing is recorded (then no
    existing file is ever replaced)."""

    record: Record | None
    job_id: str
    name: str

    def refusal(self, final: Path) -> str | None:
        """Why final may not be replaced now, or None when it may (or does not exist)."""
        if not os.path.lexists(final):
            return None
        if final.is_symlink() or not final.is_file():
            return f"{final} is not a plain file"
        if self.record is None:
            return f"{final} already exists"
        known = self.record.written_file(str(final))
        if known is None:
            return f"{final} was not written by the companion"
        if sha256_of(final) != known.sha256:
            return f"{final} was changed since the companion wrote it"
        if not self._same_animation(known):
            return f"{final} holds the output of another animation ({known.name!r})"
        return None

    def wrote(self, final: Path) -> bool:
        """The companion wrote final, a plain file, for this animation (it may have been
        changed since)."""
        if self.record is None or final.is_symlink() or not final.is_file():
            return False
        known = self.record.written_file(str(final))
        return known is not None and self._same_animation(known)

    def _same_animation(self, known: Written) -> bool:
        # The same job, or a job of the same name re-made into the same place.
        return known.job_id == self.job_id or known.name == self.name

    def claim(self, final: Path, sha256: str | None = None) -> None:
        """Remember final as written by this job, with its bytes as they are now (sha256
        when the caller already knows it: large outputs are not read twice)."""
        if self.record is None:
            return
        known = self.record.written_file(str(final))
        digest = sha256 or sha256_of(final)
        if known is None or known.sha256 != digest or known.job_id != self.job_id:
            self.record.record_written(str(final), digest, self.job_id, self.name)
