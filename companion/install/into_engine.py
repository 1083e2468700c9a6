"""Staged outputs into a Godot or Unity project, the one way every writer does it (a
paid job, a re-cut, a local export): the plan laid out and sealed (or the sealed one
resumed), the user's edited SpriteFrames or clip merged, files the companion may not
replace refused before anything moves, then the moves, and the older set of the same
name removed so one animation's files stay one set."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.install.errors import ApplyFailed, NotInstallable
from companion.install.godot.sprite_merge import merge_changed as merge_changed_sprites
from companion.install.plan import Placement
from companion.install.plan import build as build_tree
from companion.install.provenance import Provenance, stamp
from companion.install.replaced_set import drop_leftovers
from companion.install.safety.ownership import Owner
from companion.install.tree import Staged, Tree, load_manifest
from companion.install.unity.anim_merge import merge_changed as merge_changed_clips
from companion.store import Store


@dataclass(frozen=True)
class Installed:
    tree: Tree
    notes: list[str]  # older files of the name kept because the user changed them


def install(
    store: Store,
    placement: Placement,
    owner: Owner,
    staged: Sequence[Staged],
    staging: Path,
    *,
    export: dict[str, Any],
    pixel_art: bool = False,
    after_each: Callable[[], None] | None = None,
    record: Provenance | None = None,
) -> Installed:
    """Install staged (laid out under staging) into placement.target. Raises
    NotInstallable, naming the file, when one is not the companion's to replace. record,
    when given, goes into every meta and text resource written (see provenance.py).
    pixel_art: the frames are pixel art (a local export option the service's export
    does not echo), so the engine files made here filter them nearest."""
    target = placement.target
    tree = load_manifest(staging)
    if tree is None:
        tree = build_tree(
            placement,
            list(staged),
            staging,
            name=owner.name,
            formats=[str(f) for f in export.get("output_formats") or []],
            export=export,
            pixel_art=pixel_art,
        )
    # A SpriteFrames the user changed is merged (their other animations, loop and speed
    # kept), not refused; so are a Unity clip and its metas (settings, events and every
    # guid and sprite id kept).
    guard = merge_changed_sprites(tree, target, owner)
    guard.merged |= merge_changed_clips(tree, target, owner)
    if record is not None:  # after the merges: the new job's record, not the old one's
        stamp(tree, record)
    refused = tree.clashes(target, guard)
    if refused:
        more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
        raise NotInstallable(f"{refused[0]}{more}: it is never replaced")
    try:
        tree.apply(target, after_each=after_each, guard=guard)
    except NotInstallable as exc:
        raise ApplyFailed(str(exc)) from exc
    written = {tree.final(target, r) for r in tree.order}
    return Installed(tree, drop_leftovers(store, guard.owner, target, written))
