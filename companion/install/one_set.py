"""One animation's files stay one set: writing `hero` again into a folder removes the
files the companion wrote there for `hero` before that the new set does not hold (a
hero.json describing other frames beside a new hero.png would make an engine load the
wrong regions). A file the user changed since is never touched; it is named instead."""

from __future__ import annotations

from pathlib import Path

from companion.install.ownership import Owner
from companion.store import Store


def drop_leftovers(store: Store, owner: Owner, folder: Path, written: set[Path]) -> list[str]:
    """Remove the older set's files of owner's name in folder that were not written now;
    returns a note for each one kept because the user changed it."""
    notes: list[str] = []
    now = {p.resolve() for p in written}
    for record in store.written_named(owner.name):
        path = Path(record.path)
        if path.parent.resolve() != folder.resolve() or path.resolve() in now:
            continue
        if not path.exists():
            store.forget_written(record.path)
            continue
        refusal = owner.refusal(path)
        if refusal is not None:
            notes.append(
                f"{path.name} is from an earlier {owner.name!r} and was kept ({refusal}); "
                "it no longer matches the new files: remove or rename it"
            )
            continue
        path.unlink()
        store.forget_written(record.path)
    return notes
