"""POST /character/quote and POST /character: a character's moves from one picture, one
quote for the set and one approval (see companion.jobs.characters.moves).

Each move is the /animate body with the move's prompt, named CHARACTER_MOVE, carrying
its part of the set: it is priced, checked and started exactly as /animate's are (made
once, its generation paid once ever). The set is refused as a whole, before any move is
started, when one move is refused, when the character's own file cannot take the moves,
when the quote id priced another body, or when the set is over a budget unasked."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from companion.daemon import quote_context
from companion.daemon.errors import Bad
from companion.daemon.http.host import Earlier, Prepared
from companion.daemon.http.middleware import read_body
from companion.daemon.quotes import quote_id
from companion.daemon.schema.character import (
    CharacterIn,
    CharacterOut,
    CharacterQuoteOut,
    MoveJobOut,
    MoveQuoteOut,
)
from companion.install import character_files, character_refusal
from companion.jobs import (
    BadMove,
    CharacterPart,
    Move,
    character_name,
    character_parts,
    check_moves,
    formats_refusal,
    job_name,
    rewire,
    seam_search,
    set_over_budget,
)

if TYPE_CHECKING:
    from companion.daemon.http.host import Host
    from companion.daemon.routes.animate import AnimateRoutes
    from companion.jobs import Engine


@dataclass(frozen=True)
class Member:
    """One move of the set as an /animate body, with its part of the set."""

    move: Move
    part: CharacterPart
    body: CharacterIn


@dataclass(frozen=True)
class Checked:
    """The set with every check that needs no price passed."""

    name: str
    members: list[Member]
    target: Path
    engine: str
    digest: str


@dataclass(frozen=True)
class Priced:
    """Each move with its own quote (as /quote answers it), in the set's order."""

    moves: list[tuple[Member, dict[str, Any]]]

    @property
    def credits(self) -> int:
        return sum(int(q["credits"]) for _, q in self.moves)

    @property
    def spends(self) -> int:
        return sum(int(q["spends"]) for _, q in self.moves)

    def over(self, engine: Engine) -> bool:
        return set_over_budget(engine, [int(q["spends"]) for _, q in self.moves])


class CharacterRoutes:
    def __init__(self, daemon: Host, animate: AnimateRoutes) -> None:
        self.daemon = daemon
        self.animate = animate

    def routes(self) -> list[tuple[str, str, Any]]:
        return [
            ("POST", "/api/v1/character/quote", self.quote),
            ("POST", "/api/v1/character", self.create),
        ]

    async def quote(self, request: web.Request) -> web.Response:
        _, checked, priced = await self._read(request)
        frames, _ = self._files(checked)
        unusable = self._refusal(checked)
        conflicts = [] if unusable is None else [{"path": str(frames), "reason": unusable}]
        engine = self.daemon.engine
        budget = await asyncio.to_thread(quote_context.budget_for, engine, priced.spends)
        budget = budget.model_copy(update={"over": priced.over(engine)})
        balance = await quote_context.balance_now(self.daemon.engine)
        return web.json_response(
            CharacterQuoteOut(
                **self._summary(checked, priced),
                target_dir=str(checked.target),
                conflicts=conflicts,
                moves=[
                    MoveQuoteOut(move=m.move.name, loop=m.move.loop, prompt=m.move.prompt, quote=q)
                    for m, q in priced.moves
                ],
                balance=balance,
                budget=budget,
            ).model_dump(mode="json")
        )

    async def create(self, request: web.Request) -> web.Response:
        body, checked, priced = await self._read(request)
        if body.quote_id is not None and body.quote_id != checked.digest:
            raise Bad(
                409,
                "STALE_QUOTE",
                "quote_id: the moves, the settings or the picture changed since that quote; "
                "quote again (nothing was spent)",
            )
        unusable = self._refusal(checked)
        if unusable is not None:
            raise Bad(409, "CONFLICT", f"{unusable} (nothing was spent)")
        over = priced.over(self.daemon.engine)
        if over and not body.approve:
            raise Bad(
                409,
                "OVER_BUDGET",
                f"the set spends {priced.spends} credits, over a budget; nothing was spent: "
                'send "approve": true to make it all the same',
            )
        ready: list[Prepared | Earlier] = []
        for index, member in enumerate(checked.members):
            with _for_move(index, member.move.name):
                prepared = await self.animate.prepare_animate(member.body, character=member.part)
            if isinstance(prepared, Earlier):  # an earlier job of exactly this move
                await asyncio.to_thread(rewire, self.daemon.store, prepared.job)
            ready.append(prepared)
        moves = []
        for (member, quoted), one in zip(priced.moves, ready, strict=True):
            made = (
                self.animate.start_animate(one, approved=over)
                if isinstance(one, Prepared)
                else one.job
            )
            moves.append(
                MoveJobOut(
                    move=member.move.name,
                    loop=member.move.loop,
                    spends=int(quoted["spends"]),
                    job=self.daemon.job_out(made),
                )
            )
        started = any(isinstance(r, Prepared) for r in ready)
        return web.json_response(
            CharacterOut(
                **self._summary(checked, priced),
                moves=moves,
            ).model_dump(mode="json"),
            status=202 if started else 200,
        )

    async def _read(self, request: web.Request) -> tuple[CharacterIn, Checked, Priced]:
        """The body, the set checked and every move priced (a quote spends nothing); Bad
        when refused."""
        body = await read_body(request, CharacterIn)
        checked = await self._checked(body)
        # each move's quote says when the service is away
        return body, checked, await self._priced(checked)

    def _summary(self, checked: Checked, priced: Priced) -> dict[str, Any]:
        """What the quote and the answer to the press both say of the set."""
        frames, scene = self._files(checked)
        return {
            "name": checked.name,
            "quote_id": checked.digest,
            "credits": priced.credits,
            "spends": priced.spends,
            "frames": str(frames) if frames else None,
            "scene": str(scene) if scene else None,
        }

    async def _checked(self, body: CharacterIn) -> Checked:
        """The set's names, its moves as /animate bodies, and what the first of them
        resolves to (project, picture, target): Bad names what is wrong."""
        moves = [Move.asked(m.name, m.prompt, m.loop) for m in body.moves]
        try:
            name = character_name(body.name, Path(body.image_path or "character"))
            check_moves(name, moves)
        except BadMove as exc:
            field = "name" if exc.index is None else f"moves[{exc.index}].name"
            raise Bad(400, "INVALID", f"{field}: {exc}") from exc
        video = body.video
        if body.seed is not None:
            video = video.model_copy(update={"seed": body.seed})
        members = [
            Member(
                move,
                part,
                body.model_copy(
                    update={
                        "prompt": move.prompt,
                        "name": job_name(name, move.name),
                        "video": video,
                        "quote_id": None,
                        "loop": seam_search(body.loop, move),
                    }
                ),
            )
            for move, part in zip(moves, character_parts(name, moves), strict=True)
        ]
        first, _, target, image_sha256 = await self.animate.request_for(
            members[0].body, members[0].part
        )
        engine = first.install.engine if first.install is not None else "other"
        unwired = formats_refusal(engine, first.install_formats or [])
        if unwired is not None:
            raise Bad(400, "INVALID", f"export.output_formats: {unwired}")
        return Checked(name, members, target, engine, quote_id(body, image_sha256))

    async def _priced(self, checked: Checked) -> Priced:
        """Each move's own quote, in the set's order; a refused move refuses the set."""
        priced = []
        for index, member in enumerate(checked.members):
            with _for_move(index, member.move.name):
                reply = await self.animate.quote_reply(member.body, character=member.part)
            priced.append((member, reply))
        return Priced(priced)

    def _refusal(self, checked: Checked) -> str | None:
        """Why the character's own file cannot take the moves (Godot), or None."""
        if checked.engine != "godot":
            return None
        return character_refusal(checked.target, checked.name)

    def _files(self, checked: Checked) -> tuple[Path | None, Path | None]:
        if checked.engine != "godot":
            return None, None
        return character_files(checked.target, checked.name)


@contextmanager
def _for_move(index: int, move: str) -> Iterator[None]:
    """A move's refusal as the set's, its message naming the move."""
    try:
        yield
    except Bad as bad:
        message = f"moves[{index}] ({move}): {bad.message}"
        raise Bad(bad.status, bad.code, message, **{**bad.extra, "move": move}) from bad
