"""The command line's results into a game project: when --out lies in a Godot or Unity
project (registered with the daemon, or found above it), a job installs there the way the
daemon's do (the pack unpacked, the SpriteFrames or clip merged, one set of files per
name), and the files it will touch are checked before anything is spent."""

from __future__ import annotations

from pathlib import Path

from companion.cli.errors import UsageError, say
from companion.install import Placement, foreseen, planned_writes
from companion.store import Store


def placement(database: Path, out: Path, flag: str = "--out") -> Placement | None:
    """The project --out lies in, or None for a plain folder. Into a project, the
    folder's path is written into the engine's files: one that no engine string can carry
    is refused here, before anything is spent."""
    from companion.install import placement_for
    from companion.media import folder_text_refusal

    store = Store(database)
    try:
        registered = [(str(p["root"]), str(p["engine"])) for p in store.projects()]
    finally:
        store.close()
    where = placement_for(out, registered)
    if where is not None:
        inside = where.target.resolve().relative_to(where.project_root.resolve())
        unusable = folder_text_refusal(inside.as_posix())
        if unusable is not None:
            raise UsageError(
                f"{flag} {out}: its path in the {where.engine} project {unusable} "
                "(the path is written into the engine's files); nothing was spent"
            )
    return where


def refuse_res_dir(res_dir: str | None, where: Placement) -> None:
    """--godot-res-dir names paths for a pack unzipped anywhere; into a project the
    install uses the project's own."""
    if res_dir is not None:
        raise UsageError(
            f"--godot-res-dir: {where.target} is in the {where.engine} project "
            f"{where.project_root}, whose own paths the install uses; leave it out"
        )


def planned(where: Placement, name: str, formats: list[str]) -> list[Path]:
    """The files an install of these formats writes or merges under name."""
    return planned_writes(where.engine, where.target, name, formats)


def refuse_conflicts(store: Store, where: Placement, name: str, formats: list[str]) -> None:
    """A file of the user's that the install may neither replace nor merge: refused
    before anything is spent or written. Then the files of an earlier set of this name
    the install replaces or removes (the companion's own, unchanged) are named, so none
    goes unannounced."""
    found, earlier = foreseen(store, name, planned(where, name, formats), where.engine)
    if found:
        from companion.jobs import suggestion

        free = suggestion(store, where.engine, where.target, name, formats)
        raise UsageError(
            f"--out: {found[0]['reason']}; nothing was spent or written. Give --name {free} "
            f"(free in {where.target}), or move the file away, or choose another --out"
        )
    for item in earlier:
        job = item["job"][:8]
        if item.get("removed"):
            say(
                f"companion: will remove {item['path']} (an earlier {name!r} of job {job}, "
                "which the new files do not hold; a re-cut of that job brings it back free)"
            )
        else:
            say(f"companion: will update {item['path']} (from job {job})")
