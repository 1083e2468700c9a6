"""A batch: several pictures of a project animated with the same settings, as one action
with one quote (each picture's price and the total) and one cap (the budget is checked
against the whole batch, so a batch never stops half spent at a budget). Thin over the
single animation: each picture is the request /animate would make of it."""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import TYPE_CHECKING, Any

from aiohttp import web
from pydantic import Field, model_validator

from companion.daemon import quote_context
from companion.daemon.errors import Bad
from companion.daemon.http.host import Earlier, Prepared
from companion.daemon.http.middleware import read_body
from companion.daemon.schema.requests import AnimateIn
from companion.jobs import JobKind, set_over_budget
from companion.media import clean_name

if TYPE_CHECKING:
    from companion.daemon.http.host import Host

MAX_BATCH = 16


class BatchIn(AnimateIn):
    """The form of /animate for several pictures: every setting but the picture and the
    name is shared; each picture is named after itself."""

    image_paths: list[str] = Field(
        min_length=2,
        max_length=MAX_BATCH,
        description="the pictures inside the project, each animated with these settings",
    )
    approve: bool = Field(
        default=False,
        description="go ahead although the batch's total is over a budget (the one "
        "approval for the whole batch); without it such a batch is refused (409 "
        "OVER_BUDGET) before anything is spent",
    )

    @model_validator(mode="after")
    def _one_image(self) -> BatchIn:
        if self.image_path is not None or self.image_base64 is not None or self.name:
            raise ValueError("a batch names its pictures in image_paths (each its own name)")
        return self


class BatchRoutes:
    def __init__(self, daemon: Host) -> None:
        self.daemon = daemon

    def routes(self) -> list[tuple[str, str, Any]]:
        return [
            ("POST", "/api/v1/batch/quote", self.quote),
            ("POST", "/api/v1/batch", self.animate),
        ]

    def _members(self, body: BatchIn) -> list[AnimateIn]:
        shared = body.model_dump(
            mode="json", exclude_unset=True, exclude={"image_paths", "approve", "quote_id"}
        )
        names: dict[str, str] = {}
        for path in body.image_paths:
            name = clean_name(path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0])
            if name in names:
                raise Bad(400, "INVALID", f"image_paths: {names[name]} and {path} would "
                          f"both be named {name}; animate one of them on its own with "
                          "another name (nothing was spent)")  # fmt: skip
            names[name] = path
        return [AnimateIn.model_validate({**shared, "image_path": p}) for p in body.image_paths]

    async def _together(self, members: list[AnimateIn]) -> tuple[str, list[str]]:
        """One id for the whole batch (the digest of each member's quote id), and those."""
        digests = [await self.daemon.digest(member) for member in members]
        return "b_" + hashlib.sha256(json.dumps(digests).encode()).hexdigest()[:40], digests

    async def _read(
        self, request: web.Request
    ) -> tuple[BatchIn, list[AnimateIn], tuple[str, list[str]]]:
        """The batch asked for, its pictures as /animate bodies and its ids (Bad when
        refused)."""
        body = await read_body(request, BatchIn)
        members = self._members(body)
        return body, members, await self._together(members)

    async def quote(self, request: web.Request) -> web.Response:
        _, members, together = await self._read(request)
        quotes = [
            {**await self.daemon.quote_reply(member), "image_path": member.image_path}
            for member in members
        ]
        prices = [int(q["spends"]) for q in quotes]
        spends = sum(prices)
        context: dict[str, Any] = await quote_context.context(self.daemon.engine, spends)
        over = await asyncio.to_thread(set_over_budget, self.daemon.engine, prices)
        context["budget"]["over"] = over  # the whole batch against one cap
        return web.json_response(
            {
                "data": quotes,
                "credits_total": sum(int(q["credits"]) for q in quotes),
                "spends_total": spends,
                "quote_id": together[0],
                "conflicts": [{**c, "name": q["name"]} for q in quotes for c in q["conflicts"]],
                **context,
            }
        )

    async def animate(self, request: web.Request) -> web.Response:
        body, members, together = await self._read(request)
        if body.quote_id != together[0]:
            raise Bad(409, "STALE_QUOTE", "quote_id: the pictures or settings changed since "
                      "that quote (or none was sent); quote the batch again: POST "
                      "/api/v1/batch/quote (nothing was spent)")  # fmt: skip
        # Every member checked (files, names, conflicts) before the first is made: one
        # refused means none is made and nothing is spent. A member an earlier job answers
        # (made already) is that job, free.
        outcomes: list[Prepared | Earlier] = []
        for member, digest in zip(members, together[1], strict=True):
            member.quote_id = digest
            outcomes.append(await self.daemon.prepare_animate(member))
        ready = [o for o in outcomes if isinstance(o, Prepared)]
        engine = self.daemon.engine
        prices = [0]
        for member_ready in ready:  # a free re-cut of a kept clip spends nothing
            if member_ready.request.kind == JobKind.ANIMATION:
                prices.append(await engine.quote(member_ready.request, member_ready.name))
        spends = sum(prices)
        over = await asyncio.to_thread(set_over_budget, engine, prices)  # one set's cap
        if over and not body.approve:
            raise Bad(409, "OVER_BUDGET", f"the batch's total, {spends} credits, is over "
                      'a budget; nothing was spent: send "approve": true to go ahead with '
                      "the whole batch (one approval)")  # fmt: skip
        made = [  # in the pictures' order; an answered member is its earlier job
            self.daemon.start_animate(o, approved=over) if isinstance(o, Prepared) else o.job
            for o in outcomes
        ]
        jobs = [self.daemon.job_out(one).model_dump(mode="json") for one in made]
        return web.json_response(
            {"data": jobs, "spends_total": spends, "approved": over}, status=202
        )
