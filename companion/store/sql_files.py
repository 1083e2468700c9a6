"""SQL kept in files, for the SQLite store and team mode alike: versioned migrations
(NNNN_name.sql, only ever appended) and named queries (`-- name:` sections)."""

from __future__ import annotations

import re
from importlib import resources
from importlib.resources.abc import Traversable

_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)
SQLITE = "companion.store:sqlite"  # the SQLite store's folder
TEAM = "companion.store.team:"  # team mode's (PostgreSQL)


def _folder(where: str) -> Traversable:
    package, _, sub = where.partition(":")
    root = resources.files(package)
    return root.joinpath(sub) if sub else root


def queries(where: str) -> dict[str, str]:
    """Every named query of where's queries.sql, by name."""
    text = _folder(where).joinpath("queries.sql").read_text()
    parts = _NAME.split(text)
    return {
        name: body.strip().rstrip(";") for name, body in zip(parts[1::2], parts[2::2], strict=True)
    }


def migrations(where: str) -> tuple[tuple[int, str, str], ...]:
    """(version, name, script) of every migration in where's migrations/, in order."""
    found = []
    for entry in _folder(where).joinpath("migrations").iterdir():
        match = re.fullmatch(r"(\d{4})_(\w+)\.sql", entry.name)
        if match:
            found.append((int(match[1]), match[2], entry.read_text()))
    return tuple(sorted(found))
