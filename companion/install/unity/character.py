"""A character's moves into a Unity project: each move's clip becomes a state of the
character's Animator Controller `NAME.controller`, written (made once, then only merged:
the user's transitions, parameters and layers kept) by the controller writer,
companion.install.unity.controller_install.

The controller is first made when the move the set plays first (idle, or the first move)
is installed, so that move is its default state whatever order the moves finish in; from
then on each move's install hands the writer every move of the set whose clip is in, and
the writer adds states only for those it does not play yet."""

from __future__ import annotations

import re
from pathlib import Path

from companion.install.safety.ownership import Owner
from companion.install.safety.plain_files import read_plain_text
from companion.install.tree import read_with_digest, replace_unchanged
from companion.install.unity.anim_merge import GUID
from companion.install.unity.controller import ControllerMove
from companion.install.unity.controller_install import install_controller

LOOP_TIME = re.compile(r"^(    m_LoopTime:[ \t]*)([01])[ \t]*$", re.M)


def set_clip_loop(clip: Path, loop: bool, owner: Owner) -> bool:
    """The move's clip made to loop or play once, as the move asks: only while it is the
    companion's file as written (a clip the user changed keeps what they set); True when
    it was changed."""
    if owner.refusal(clip) is not None or not clip.is_file():
        return False
    text, was = read_with_digest(clip)
    wanted = "1" if loop else "0"
    found = LOOP_TIME.search(text)
    if found is None or found.group(2) == wanted:
        return False
    changed = LOOP_TIME.sub(lambda m: m.group(1) + wanted, text, count=1)
    if not replace_unchanged(clip, changed, was):
        return False  # the user saved it meanwhile: what they set stays
    owner.claim(clip)  # still the companion's, as it is now
    return True


def clip_guid(clip: Path) -> str | None:
    """The guid the clip's meta gives it, or None when the clip or its meta is not in."""
    meta = clip.with_name(clip.name + ".meta")
    if not clip.is_file() or not meta.is_file():
        return None
    found = GUID.search(read_plain_text(meta, follow=False))
    return found.group(1).lower() if found else None


def add_unity_move(
    project_root: Path,
    target: Path,
    *,
    character: str,
    autoplay: str,
    moves: dict[str, bool],
    clip_of: dict[str, Path],
    owner: Owner,
) -> Path | None:
    """The set's installed moves into NAME.controller; its path, or None while the move
    played first is not in yet."""
    found = {name: clip_guid(clip) for name, clip in clip_of.items()}
    guids = {name: guid for name, guid in found.items() if guid is not None}
    if autoplay not in guids:
        return None  # made with the first move as its default state, once that is in
    order = [autoplay, *(name for name in moves if name != autoplay)]
    present = [
        ControllerMove(name=name, clip_guid=guids[name], loop=moves.get(name, False))
        for name in order
        if name in guids
    ]
    made: Path = install_controller(project_root, target, character, present, owner)
    return made
