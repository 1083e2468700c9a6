"""The SQL of team mode, kept in files: versioned migrations and named queries (read by
the loader the SQLite store shares, companion.store.sql_files)."""

from __future__ import annotations

from functools import cache

from companion.store import sql_files


@cache
def queries() -> dict[str, str]:
    """Every named query of queries.sql, by name."""
    return sql_files.queries(sql_files.TEAM)


@cache
def migrations() -> tuple[tuple[int, str, str], ...]:
    """(version, name, script) of every migration, in order."""
    return sql_files.migrations(sql_files.TEAM)
