"""POST /character/quote and POST /character: a character's moves from one picture, as
models (the OpenAPI document is generated from them)."""

from __future__ import annotations

from pydantic import Field, model_validator

from companion.daemon.schema.quote import QuoteOut
from companion.daemon.schema.requests import (
    AnimateIn,
    BudgetOut,
    JobOut,
    OutputName,
    Reply,
    Request,
)


class MoveIn(Request):
    name: OutputName = Field(
        description="the move's animation name (idle, walk, attack...): a letter first; "
        "its files are named CHARACTER_MOVE"
    )
    prompt: str = Field(min_length=1, max_length=8000, description="what should move")
    loop: bool | None = Field(
        default=None,
        description="whether it loops; left out: idle, walk, run, fly, swim and float "
        "loop, any other move plays once",
    )


class CharacterIn(AnimateIn):
    """The body of /quote and /animate (the picture, export, video, selection, target,
    references and negative prompt shared by every move), with the set's moves. name is
    the character's (default: the picture's name); prompt stays empty (each move has its
    own); quote_id is the one /character/quote returned for exactly this body."""

    moves: list[MoveIn] = Field(min_length=1, max_length=12)
    seed: int | None = Field(
        default=None,
        ge=0,
        le=2**32 - 1,
        description="one seed for every move (the moves stay alike); sets video.seed",
    )
    approve: bool = Field(
        default=False,
        description="go on even when what the set spends is over a budget (the quote's "
        "budget.over); without it such a set is refused (409 OVER_BUDGET), spending nothing",
    )

    @model_validator(mode="after")
    def _no_prompt(self) -> CharacterIn:
        if self.prompt:
            raise ValueError("prompt: each move has its own (moves[].prompt); leave it out")
        return self


class MoveQuoteOut(Reply):
    move: str
    loop: bool
    prompt: str
    quote: QuoteOut = Field(
        description="the move's own quote, as POST /quote answers it for the move (its "
        "name is the move's job and file name, CHARACTER_MOVE)"
    )


class CharacterQuoteOut(Reply):
    name: str = Field(description="the character's name, as its files are named")
    target_dir: str
    quote_id: str = Field(description="give it to POST /character, which refuses anything else")
    credits: int = Field(description="the whole set made anew")
    spends: int = Field(
        description="what POST /character with this body spends now: the moves nothing "
        "answers (a move made already, or whose generation is kept, spends 0)"
    )
    frames: str | None = Field(
        default=None,
        description="Godot: the character's SpriteFrames (an animation per move); "
        "null for other engines",
    )
    scene: str | None = Field(
        default=None,
        description="Godot: the scene playing it, made once (an existing one is the user's "
        "and left alone)",
    )
    conflicts: list[dict[str, str]] = Field(
        default_factory=list,
        description="the character's own file when it cannot take the moves (path, "
        "reason): POST /character refuses the set (409 CONFLICT) before spending",
    )
    moves: list[MoveQuoteOut]
    balance: int | None = None
    budget: BudgetOut | None = Field(
        default=None, description="over: what the set spends is over a budget"
    )


class MoveJobOut(Reply):
    move: str
    loop: bool
    spends: int = Field(description="what it was quoted to spend (0 when answered)")
    job: JobOut = Field(
        description="its job: new, or the earlier one of exactly this move that answers it"
    )


class CharacterOut(Reply):
    name: str
    quote_id: str
    credits: int
    spends: int
    frames: str | None = None
    scene: str | None = None
    moves: list[MoveJobOut]
