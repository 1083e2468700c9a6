"""A move of a character, installed, wired into the character's own engine files: its
animation into the Godot SpriteFrames (and the scene made once), or its clip into the
Unity Animator Controller. Done by each move's install, whichever way in made it; and
again, free, for a move made earlier whose animation the character's file no longer
holds (the user deleted the file: the same set again brings it back)."""

from __future__ import annotations

import logging
from pathlib import Path

from companion.install import (
    InstallError,
    Owner,
    Placement,
    add_character_move,
    add_unity_move,
    character_holds,
    set_clip_loop,
)
from companion.jobs.ask.request import CharacterPart, JobRequest
from companion.jobs.characters.moves import job_name
from companion.jobs.lifecycle import State
from companion.store import Job, Store

log = logging.getLogger("companion.jobs")


def into_character(
    store: Store, job: Job, placement: Placement, part: CharacterPart, resource: str
) -> list[str]:
    """The installed move into the character's files; the notes say why not (the move's
    own files are in all the same)."""
    owner = Owner(store, job.id, job.name)
    try:
        if placement.engine == "unity":
            moves = part.moves or {part.move: part.loop}
            clips = {m: placement.target / f"{job_name(part.character, m)}.anim" for m in moves}
            set_clip_loop(clips[part.move], part.loop, owner)  # an attack plays once
            add_unity_move(
                placement.project_root,
                placement.target,
                character=part.character,
                autoplay=part.autoplay,
                moves=moves,
                clip_of=clips,
                owner=owner,
            )
        elif placement.engine == "godot" and resource.startswith("res://"):
            add_character_move(
                placement.project_root,
                placement.target,
                character=part.character,
                move=part.move,
                loop=part.loop,
                autoplay=part.autoplay,
                move_frames=placement.project_root / resource[len("res://") :],
                owner=owner,
                pixel_art=JobRequest.of(job.request).pixel_art is not None,
            )
    except InstallError as exc:
        kind = "controller" if placement.engine == "unity" else "tres"
        return [f"the move's files are in, but {part.character}.{kind} did not take it: {exc}"]
    return []


def rewire(store: Store, job: Job) -> None:
    """A done move of a character whose animation its Godot SpriteFrames no longer holds
    (or whose Unity controller lacks it) added again, free; logged when it cannot be."""
    asked = JobRequest.of(job.request)
    part = asked.character
    placement = asked.placement(Path(job.target_dir)) if job.target_dir else None
    if part is None or placement is None or job.state != State.DONE or not job.resource:
        return
    if placement.engine == "godot" and character_holds(placement.target, part.character, part.move):
        return
    for note in into_character(store, job, placement, part, job.resource):
        log.warning("job %s: %s", job.id, note)
