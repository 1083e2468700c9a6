"""The package's shape: folders that stay short enough to read as a map, imports that
point down the layers, no circle. A module is one idea whatever its length; one that
grows past LONG_MODULE lines is worth a look, so the test says so without failing."""

from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
import types
import warnings
from pathlib import Path

import companion.install
import companion.jobs
from tests.support.paths import REPO

PACKAGE = REPO / "companion"
LONG_MODULE = 800
# Modules at one level of a folder (its __init__ aside): past this a folder reads as a
# list, and its families want subpackages of their own.
MAX_MODULES_IN_A_FOLDER = 15
FRONT_DOORS = {"install": companion.install, "jobs": companion.jobs}
# A package imports only packages of a lower rank (the entry point __main__ aside).
RANKS = {
    "cli": 7,
    "daemon": 6,
    "runtime": 5,
    "jobs": 4,
    "install": 3,
    "store": 2,
    "sandbox": 2,
    "media": 1,
    "api": 0,
    "settings": 0,
}


@functools.cache
def modules() -> dict[str, Path]:
    return {
        ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): p
        for p in PACKAGE.rglob("*.py")
    }


def imports(path: Path) -> set[str]:
    """Every companion module a file imports: at load time, inside a function, or for
    type checking alone (a circle of annotations is a circle all the same). `from a
    import b` of a module b depends on b alone (a's __init__ runs before b in any case)."""
    known = modules()
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            named = {f"{node.module}.{a.name}" for a in node.names}
            found |= named
            if not named <= known.keys():
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return {m for m in found if m.startswith("companion.")}


def test_no_folder_is_a_long_list() -> None:
    crowded = {}
    for folder in (p.parent for p in PACKAGE.rglob("__init__.py")):
        own = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        if len(own) > MAX_MODULES_IN_A_FOLDER:
            crowded[folder.relative_to(PACKAGE.parent).as_posix()] = len(own)
    assert crowded == {}, f"give these folders subpackages (at most {MAX_MODULES_IN_A_FOLDER})"


def test_long_modules_are_said() -> None:
    for path in PACKAGE.rglob("*.py"):
        lines = len(path.read_text().splitlines())
        if lines > LONG_MODULE:
            name = path.relative_to(PACKAGE).as_posix()
            warnings.warn(f"{name} has {lines} lines: still one idea?", stacklevel=1)


def test_every_package_has_a_rank_and_imports_only_lower_ones() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    packages.discard("engine_plugins")  # package data: the plugins' own files
    assert packages <= RANKS.keys(), packages - RANKS.keys()
    upward = []
    for name, path in modules().items():
        parts = name.split(".")
        if len(parts) < 3:  # companion itself and its entry point
            continue
        for target in imports(path):
            other = target.split(".")[1]
            if other != parts[1] and RANKS.get(other, -1) >= RANKS[parts[1]]:
                upward.append(f"{name} -> {target}")
    assert upward == []


def test_no_import_circle() -> None:
    found = modules()
    graph = {name: imports(path) & found.keys() - {name} for name, path in found.items()}
    circles = []
    done: set[str] = set()
    for start in sorted(graph):
        # depth first; a module met again on the current path closes a circle
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, todo = stack[-1]
            if not todo:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
                continue
            nxt = todo.pop()
            if nxt in on_path:
                circles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in done:
                stack.append((nxt, sorted(graph[nxt])))
                path.append(nxt)
                on_path.add(nxt)
    assert circles == []


def test_other_packages_come_in_through_the_front_doors() -> None:
    """install/ and jobs/ are used through what their __init__ offers; what lies behind
    may move without another package noticing."""
    behind = []
    for name, path in modules().items():
        own = name.split(".")[1] if "." in name else ""
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            parts = node.module.split(".")
            if parts[0] != "companion" or len(parts) < 2 or parts[1] not in FRONT_DOORS:
                continue
            if parts[1] == own:
                continue
            door = FRONT_DOORS[parts[1]]
            if len(parts) > 2 or any(a.name not in door.__all__ for a in node.names):
                behind.append(f"{name}: from {node.module} import ...")
    assert behind == []


def test_each_front_door_offers_the_objects_its_modules_define() -> None:
    for package in FRONT_DOORS.values():
        submodules = {m.name for m in pkgutil.iter_modules(package.__path__)}
        for name in package.__all__:
            assert name not in submodules, f"{package.__name__}.{name} is also a module"
            assert not isinstance(getattr(package, name), types.ModuleType), name
        for name, (module, attr) in package._LAZY.items():
            defined = getattr(importlib.import_module(f"{package.__name__}.{module}"), attr)
            assert getattr(package, name) is defined, name
