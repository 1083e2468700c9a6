"""What the daemon says of itself and of the service: health, status (tier, balance,
books, reachability, job counts), team mode's state, the model listing and the daemon's
own OpenAPI document."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import TYPE_CHECKING, Any

from aiohttp import web

from companion import __version__
from companion.api.errors import CompanionApiError
from companion.api.transport import RetryPolicy
from companion.daemon.http.middleware import reachable
from companion.daemon.reach import unreachable
from companion.daemon.schema.limits import request_limits
from companion.daemon.schema.openapi import daemon_openapi
from companion.daemon.schema.requests import BooksOut, StatusOut
from companion.store.books import disagreement, store_books

if TYPE_CHECKING:
    from companion.daemon.http.host import Host

log = logging.getLogger("companion.daemon")
STATUS_CACHE_SECONDS = 10.0
STATUS_POLICY = RetryPolicy(max_attempts=2, deadline=8.0)  # the page waits on it


class StatusRoutes:
    def __init__(self, daemon: Host) -> None:
        self.daemon = daemon
        self._status: tuple[float, dict[str, Any], dict[str, int]] | None = None
        self._plugins_told: set[str] = set()

    def routes(self) -> list[tuple[str, str, Any]]:
        return [
            ("GET", "/api/v1/health", self.health),
            ("GET", "/api/v1/status", self.status),
            ("GET", "/api/v1/team", self.team),
            ("GET", "/api/v1/models", self.models),
            ("GET", "/api/v1/openapi.json", self.openapi),
        ]

    async def health(self, request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "version": __version__})

    async def team(self, request: web.Request) -> web.Response:
        """Team mode's shared state (members, slots, windows, spend, drift), or
        {"team": false} for a companion alone."""
        return web.json_response(await self.daemon.engine.account.status())

    def _plugin_said(self, said: str) -> None:
        """A plugin names itself and its version in X-Companion-Plugin ("godot 0.1.0"): a
        version other than the daemon's is logged once, with the command that fixes it."""
        engine, _, version = said.partition(" ")
        if engine not in ("godot", "unity") or not re.fullmatch(r"[0-9A-Za-z.+-]{1,32}", version):
            return
        if version == __version__ or said in self._plugins_told:
            return
        self._plugins_told.add(said)
        log.warning(
            "the %s plugin %s talks to companion %s; update it in its project with: "
            "companion plugin install %s PROJECT",
            engine,
            version,
            __version__,
            engine,
        )

    async def status(self, request: web.Request) -> web.Response:
        self._plugin_said(request.headers.get("X-Companion-Plugin", ""))
        daemon = self.daemon
        reach = daemon.reach
        counts: dict[str, int] = {}
        for job in daemon.store.jobs():
            counts[job.state] = counts.get(job.state, 0) + 1
        # The balance is asked again once a job moved (one that was charged, say), so the
        # plugins show the account's balance after every job, not one 10 s old.
        cached = self._status
        if (
            cached is None
            or time.monotonic() - cached[0] > STATUS_CACHE_SECONDS
            or cached[2] != counts
        ):
            self._status = (time.monotonic(), await self._service_info(), counts)
            cached = self._status
        out = StatusOut(
            version=__version__,
            mode="sandbox" if daemon.sandbox else "live",
            service=daemon.service_label,
            jobs=counts,
            limits=request_limits(),
            reachable=reach is None or reach.reachable,
            service_error=None if reach is None else reach.error,
            next_try=None if reach is None or reach.reachable else reach.next_try,
            **cached[1],
        )
        return web.json_response(out.model_dump(mode="json"))

    async def _service_info(self) -> dict[str, Any]:
        """Tier and balance, asked briefly; nothing while the service is known away."""
        reach, engine = self.daemon.reach, self.daemon.engine
        if reach is not None and not reach.reachable:
            return {}
        try:
            account = await engine.client.get_account(STATUS_POLICY)
            balance = await engine.client.get_credit_balance(STATUS_POLICY)
        except CompanionApiError as exc:
            log.warning("status: the service did not answer (%s)", exc)
            if reach is not None and unreachable(exc):
                reach.lost(exc)
            return {}
        ledger = await asyncio.to_thread(store_books, self.daemon.store, balance.available)
        books = BooksOut(
            disagreement=disagreement(ledger.get("drift"), ledger.get("drift_since")),
            **{k: v for k, v in ledger.items() if k in BooksOut.model_fields},
        )
        return {"tier": str(account.plan.code), "balance": balance.available, "books": books}

    async def models(self, request: web.Request) -> web.Response:
        reachable(self.daemon.reach)
        listed = await self.daemon.engine.client.list_models()
        return web.json_response(listed.model_dump(mode="json"))

    async def openapi(self, request: web.Request) -> web.Response:
        return web.json_response(daemon_openapi())
