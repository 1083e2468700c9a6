"""A character: one picture, several moves (idle, walk, attack...), each a generation of
its own, wired into the engine as one playable set.

Each move becomes one ordinary animation job built by `JobRequest.animation`, named
`CHARACTER_MOVE`, carrying the part of the set it plays (`Part`): so each move's remote
part is paid once ever (companion.jobs.remote.reuse), the same set again spends nothing, and a
move added later pays only for itself. The install of each move then adds its animation
to the character's own engine resource (see companion.install.godot.character). The checks
here need no service and no disk: every name of every move passes before anything is
priced."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from companion.api.schema import ModelsResponse
from companion.jobs.ask.finishing import Finishing
from companion.jobs.ask.request import AnimationAsk, CharacterPart, JobRequest
from companion.jobs.errors import BadMove
from companion.media import clean_name, is_clean_name

# Moves a game plays over and over; any other (attack, jump, hurt) plays once unless told.
LOOPING = frozenset({"idle", "walk", "run", "fly", "swim", "float"})
MAX_MOVES = 12


class Move(BaseModel):
    """One move of a character as asked: its animation's name, what should move, and
    whether it loops."""

    model_config = ConfigDict(frozen=True)

    name: str
    prompt: str
    loop: bool

    @classmethod
    def asked(cls, name: str, prompt: str, loop: bool | None = None) -> Move:
        """A move with its loop decided by its name when not said (idle, walk, run, fly,
        swim and float loop)."""
        return cls(name=name, prompt=prompt, loop=name.lower() in LOOPING if loop is None else loop)


@dataclass(frozen=True)
class MoveJob:
    """One move ready to be priced and submitted: its request and the job's name."""

    move: Move
    name: str
    request: JobRequest


def job_name(character: str, move: str) -> str:
    """The name a move's job and files take: CHARACTER_MOVE (hero_idle)."""
    return f"{character}_{move}"


def check_moves(character: str, moves: Sequence[Move]) -> None:
    """Every name of the set usable, before anything is read or priced: BadMove names
    the first that is not."""
    if not moves:
        raise BadMove("give at least one move (a name and what should move)")
    if len(moves) > MAX_MOVES:
        raise BadMove(f"{len(moves)} moves: a character takes at most {MAX_MOVES} at once")
    seen: dict[str, str] = {}
    for index, move in enumerate(moves):
        if not is_clean_name(move.name) or not move.name[0].isalpha():
            fixed = clean_name(move.name).lstrip("0123456789_") or "idle"
            raise BadMove(
                f"{move.name!r} is not usable as an animation name (start with a letter; no "
                f'<>:"/\\|?*#%[]{{}} or edge spaces); use {fixed!r}',
                index,
            )
        if not move.prompt.strip():
            raise BadMove(
                f'{move.name}: say what should move (e.g. {move.name}="walk cycle")', index
            )
        folded = move.name.casefold()  # Idle and idle would be one file on most disks
        if folded in seen:
            raise BadMove(
                f"{move.name!r} is given twice (as {seen[folded]!r} too); give each move once",
                index,
            )
        seen[folded] = move.name
        if not is_clean_name(job_name(character, move.name)):
            raise BadMove(
                f"{job_name(character, move.name)!r} (the move's file name) is too long; "
                "give a shorter character or move name",
                index,
            )


# What each engine wires a character from: a pack (one SpriteFrames, one clip per move).
WIRED_BY = {"godot": ("godot_pack",), "unity": ("unity_pack", "unity_meta")}


def formats_refusal(engine: str, formats: Sequence[str]) -> str | None:
    """Why these formats cannot wire a character into engine's project, or None."""
    needed = WIRED_BY.get(engine, ())
    if not needed or set(needed) & set(formats):
        return None
    what = "one SpriteFrames" if engine == "godot" else "an Animator Controller"
    return (
        f"a character in a {engine.capitalize()} project needs {' or '.join(needed)} (its "
        f"moves become {what}); add it, or leave the formats out"
    )


def character_name(name: str | None, image: Path) -> str:
    """The set's name: as given (it must be a clean name), else the picture's stem."""
    if name is not None:
        if not is_clean_name(name):
            fixed = clean_name(name)
            raise BadMove(f"the name {name!r} is not usable as a file name; use {fixed!r}")
        return name
    return clean_name(image.stem) or "character"


def parts(character: str, moves: Sequence[Move]) -> list[CharacterPart]:
    """The part each move plays in the set; the scene plays idle first, else the first
    move."""
    idle = [m.name for m in moves if m.name.casefold() == "idle"]
    autoplay = idle[0] if idle else moves[0].name
    every = {m.name: m.loop for m in moves}
    return [
        CharacterPart(character=character, move=m.name, loop=m.loop, autoplay=autoplay, moves=every)
        for m in moves
    ]


def seam_search(asked: bool | None, move: Move) -> bool | None:
    """A move's own loop search: the one asked of the set is for the moves that loop;
    one that plays once keeps its whole take (it has no seam to hide)."""
    return False if asked and not move.loop else asked


def looped(finishing: Finishing | None, move: Move) -> Finishing | None:
    """A move's own finishing: the set's, with the move's own loop search."""
    if finishing is None:
        return None
    return finishing.model_copy(update={"loop": seam_search(finishing.loop, move)})


def move_jobs(
    character: str,
    moves: Sequence[Move],
    ask: AnimationAsk,
    models: ModelsResponse | None = None,
    seed: int | None = None,
) -> list[MoveJob]:
    """One request per move, each by the one constructor from the set's ask (its
    pictures, negative prompt, options, finishing and project) with the move's prompt and
    part, and the set's seed (when given) in every move's video options: the moves of one
    character stay alike. The finishing's loop search applies to the moves that loop (see
    looped)."""
    check_moves(character, moves)
    if seed is not None:
        ask = ask.model_copy(update={"video": ask.video.model_copy(update={"seed": seed})})
    made = []
    for move, part in zip(moves, parts(character, moves), strict=True):
        prompt = ask.prompt.model_copy(update={"text": move.prompt})
        said = {"prompt": prompt, "character": part, "finishing": looped(ask.finishing, move)}
        request = JobRequest.animation(ask.model_copy(update=said), models)
        made.append(MoveJob(move, job_name(character, move.name), request))
    return made
