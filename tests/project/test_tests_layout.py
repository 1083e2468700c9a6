"""The tests' own shape: they mirror the code (unit tests by layer, integration tests by
door, engines, the team), helpers live in tests/support alone, and no test module is
imported by another, so a test file can be read, moved or deleted on its own."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import REPO

TESTS = REPO / "tests"
FOLDERS = {
    "unit",
    "integration",
    "engines",
    "team",
    "project",
    "support",
}
UNIT_LAYERS = {"api", "media", "install", "jobs", "store", "sandbox"}


def _python_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def _imported(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def test_no_test_module_is_imported_by_another() -> None:
    offenders = [
        f"{path.relative_to(REPO)} imports {name}"
        for path in _python_files()
        for name in sorted(_imported(path))
        if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_")
    ]
    assert not offenders, "\n".join(offenders)


def test_helpers_live_in_support_and_tests_in_their_folders() -> None:
    loose = sorted(
        p.name for p in TESTS.glob("*.py") if p.name not in {"__init__.py", "conftest.py"}
    )
    assert not loose, f"modules at the top of tests/: {loose}"
    assert {p.name for p in TESTS.iterdir() if p.is_dir() and p.name != "__pycache__"} == FOLDERS
    outside = [
        str(p.relative_to(REPO))
        for p in _python_files()
        if "support" not in p.parts
        and p.name not in {"__init__.py", "conftest.py"}
        and not p.name.startswith("test_")
    ]
    assert not outside, f"helpers outside tests/support: {outside}"
    in_support = [p.name for p in (TESTS / "support").rglob("test_*.py")]
    assert not in_support, f"tests inside tests/support: {in_support}"


def test_unit_tests_are_grouped_by_the_layer_they_test() -> None:
    layers = {p.name for p in (TESTS / "unit").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert layers <= UNIT_LAYERS | {"cli", "daemon", "runtime", "settings"}, layers
    for layer in layers:
        assert (REPO / "companion" / layer).is_dir(), f"tests/unit/{layer} names no layer"
