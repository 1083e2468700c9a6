"""The SQL of team mode, kept in files: versioned migrations and named queries."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)


@cache
def queries() -> dict[str, str]:
    """Every named query of queries.sql, by name."""
    text = resources.files(__package__).joinpath("queries.sql").read_text()
    parts = _NAME.split(text)
    return {
        name: body.strip().rstrip(";") for name, body in zip(parts[1::2], parts[2::2], strict=True)
    }


@cache
def migrations() -> tuple[tuple[int, str, str], ...]:
    """(version, name, script) of every migration, in order."""
    found = []
    for entry in resources.files(__package__).joinpath("migrations").iterdir():
        match = re.fullmatch(r"(\d{4})_(\w+)\.sql", entry.name)
        if match:
            found.append((int(match[1]), match[2], entry.read_text()))
    return tuple(sorted(found))
