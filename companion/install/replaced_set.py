"""One animation's files stay one set: writing `hero` again into a folder removes the
files the companion wrote there for `hero` before that the new set does not hold (a
hero.json describing other frames beside a new hero.png would make an engine load the
wrong regions). A file the user changed since is never touched; it is named instead."""

from __future__ import annotations

from pathlib import Path

from companion.install.safety.ownership import Owner
from companion.store import Store
from companion.store.records import WrittenFile


def older_set(store: Store, name: str, folder: Path, written: set[Path]) -> list[WrittenFile]:
    """The records of the files the companion wrote for `name` in folder before that the
    new set (`written`) does not hold, whether or not they are still there: what an
    install removes, and what a quote says it will."""
    now = {p.resolve() for p in written}
    here = folder.resolve()
    return [
        record
        for record in store.written_named(name)
        if Path(record.path).parent.resolve() == here and Path(record.path).resolve() not in now
    ]


def drop_leftovers(store: Store, owner: Owner, folder: Path, written: set[Path]) -> list[str]:
    """Remove the older set's files of owner's name in folder that were not written now;
    returns a note for each one kept because the user changed it."""
    notes: list[str] = []
    for record in older_set(store, owner.name, folder, written):
        path = Path(record.path)
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
