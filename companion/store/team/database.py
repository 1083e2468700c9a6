"""The team database itself: a small async connection pool, the migrations on opening,
and the named queries of queries.sql run in one round trip each. A call that cannot
reach the server raises TeamUnavailable (naming the database, never its password).

Through a transaction-pooling PgBouncer (`pooled`), a session is not kept between
transactions, so no prepared statements are made."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from companion.store.errors import TeamUnavailable
from companion.store.team.migrate import migrate
from companion.store.team.sql import queries

log = logging.getLogger("companion.team")


def describe(dsn: str) -> str:
    """Where the database is, for messages: never the password."""
    try:
        parts = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "the team database (its connection string is not valid)"
    host = parts.get("host") or "localhost"
    port = parts.get("port") or "5432"
    where = f"{host}:{port}" if not str(host).startswith("/") else f"socket {host}"
    return f"{parts.get('dbname') or parts.get('user') or 'postgres'} at {where}"


def reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class TeamDatabase:
    def __init__(self, dsn: str, *, connect_timeout: float = 5.0, pooled: bool = False) -> None:
        self.dsn = dsn
        self.where = describe(dsn)
        # A prepared statement lives in a server session, which a transaction pooler
        # hands to another client after each transaction: none are made there.
        self.connect_options: dict[str, Any] = {"autocommit": True}
        if pooled:
            self.connect_options["prepare_threshold"] = None
        self._pool = AsyncConnectionPool(
            dsn,
            min_size=1,
            max_size=4,
            open=False,
            timeout=connect_timeout,
            kwargs={**self.connect_options, "connect_timeout": max(1, int(connect_timeout))},
            name="companion-team",
        )
        self._pending: set[asyncio.Task[Any]] = set()
        self._down = False

    async def open(self) -> None:
        """Connect and migrate; raises TeamUnavailable with the server's reason."""
        try:
            # One direct connection first: it fails fast, with the server's reason.
            async with await psycopg.AsyncConnection.connect(
                self.dsn, **self.connect_options, connect_timeout=max(1, int(self._pool.timeout))
            ) as conn:
                await migrate(conn)
            await self._pool.open(wait=True, timeout=self._pool.timeout)
        except (psycopg.Error, PoolTimeout) as exc:
            await self._pool.close()
            raise TeamUnavailable(
                f"cannot open {self.where} for team mode ({reason(exc)}); check team.database "
                "in config.yaml or COMPANION_TEAM_DATABASE"
            ) from exc

    async def close(self) -> None:
        """Let what was sent in the background finish, then close the pool."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)
        await self._pool.close()

    async def fetch(self, name: str, **params: Any) -> list[dict[str, Any]]:
        query = queries()[name]
        for attempt in (1, 2):
            try:
                async with self._pool.connection() as conn:
                    cursor = conn.cursor(row_factory=dict_row)
                    await cursor.execute(query.encode(), params)
                    rows = await cursor.fetchall() if cursor.description else []
            except psycopg.OperationalError as exc:
                # A connection broken by a restart is dropped by the pool: try once more
                # (every operation is safe to repeat).
                if attempt == 1:
                    continue
                raise self._unavailable(exc) from exc
            except PoolTimeout as exc:
                raise self._unavailable(exc) from exc
            if self._down:
                self._down = False
                log.warning("team database %s is reachable again", self.where)
            return rows
        raise AssertionError("unreachable")

    async def run(self, name: str, **params: Any) -> None:
        await self.fetch(name, **params)

    async def value(self, name: str, **params: Any) -> Any:
        rows = await self.fetch(name, **params)
        return next(iter(rows[0].values())) if rows else None

    def later(self, name: str, **params: Any) -> None:
        """Run a query in the background; a failure is only logged (the caller's state
        does not depend on it). Raises RuntimeError outside a running loop."""
        self.background(self.fetch(name, **params))

    def background(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            work.close()
            raise
        task = loop.create_task(work)
        self._pending.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._pending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.info("team update deferred: %s", task.exception())

    def _unavailable(self, exc: Exception) -> TeamUnavailable:
        if not self._down:
            self._down = True
            log.warning("team database %s is unreachable (%s); waiting", self.where, reason(exc))
        return TeamUnavailable(f"the team database {self.where} is unreachable")
