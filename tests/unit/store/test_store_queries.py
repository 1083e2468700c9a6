"""The SQLite store's SQL lives in sqlite/queries.sql: each named query is used, each
one used exists, and each compiles against the migrated schema."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from companion.store import Store
from companion.store.database import QUERIES, fill
from tests.support.paths import REPO

STORE = REPO / "companion" / "store"


def names_used(path: Path) -> set[str]:
    """The query names a module passes to _rows, run or fill."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        called = node.func.attr if isinstance(node.func, ast.Attribute) else None
        called = called or (node.func.id if isinstance(node.func, ast.Name) else None)
        if called in ("_rows", "run", "fill"):
            found |= {
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            }
    return found


def test_every_named_query_is_used_and_every_used_one_exists() -> None:
    used = set()
    for path in STORE.glob("*.py"):
        used |= names_used(path)
    assert used == set(QUERIES)


def test_the_store_modules_keep_no_sql_of_their_own() -> None:
    statement = re.compile(r"""["'](?:SELECT|INSERT|UPDATE|DELETE|CREATE)\b""")
    inline = [p.name for p in STORE.glob("*.py") if statement.search(p.read_text())]
    assert inline == []


def test_every_named_query_compiles_against_the_schema(tmp_path: Path) -> None:
    store = Store(tmp_path / "books.db")
    try:
        with store._use() as db:
            for name in QUERIES:
                query = fill(name, {"assignments": "state = :state, error = :error"})
                params = dict.fromkeys(re.findall(r":(\w+)", query))
                db.execute(f"EXPLAIN {query}", params)  # compiled, not run
    finally:
        store.close()
