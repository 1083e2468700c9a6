"""Brings a team database to the newest schema: versioned .sql files, each applied once,
all in one transaction serialised across members by a transaction-scoped advisory lock
(so it also holds behind a transaction-pooling PgBouncer)."""

from __future__ import annotations

import psycopg

from companion.store.team.sql import migrations

LOCK = 0x636F6D70  # "comp": the migration lock


async def migrate(conn: psycopg.AsyncConnection[object]) -> int:
    """Apply what is missing; returns the schema version now in place."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK,))
        await conn.execute("CREATE SCHEMA IF NOT EXISTS companion")
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS companion.migrations ("
            "version integer PRIMARY KEY, name text NOT NULL, "
            "applied_at timestamptz NOT NULL DEFAULT clock_timestamp())"
        )
        cursor = await conn.execute("SELECT coalesce(max(version), 0) FROM companion.migrations")
        row = await cursor.fetchone()
        current = int(row[0]) if row else 0  # type: ignore[index]
        for version, name, script in migrations():
            if version <= current:
                continue
            await conn.execute(script.encode())
            await conn.execute(
                "INSERT INTO companion.migrations (version, name) VALUES (%s, %s)",
                (version, name),
            )
            current = version
        return current
