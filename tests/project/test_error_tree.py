"""One root for the companion's own errors, one family per layer under it, each drawn
in its layer's errors module, and the command line's exit code read from that tree."""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import inspect
import pkgutil
import re
import types

import companion
from companion import CompanionError
from companion.api.errors import ApiStatusError, CompanionApiError, TransportError
from companion.cli.errors import CliError, as_cli_error
from companion.daemon.errors import DaemonError
from companion.install.errors import InstallError
from companion.jobs.errors import JobFailed, JobsError
from companion.media.errors import MediaError
from companion.settings.errors import ConfigError, SettingsError
from companion.store.errors import StoreError
from tests.support.paths import REPO

FAMILIES: dict[str, type[CompanionError]] = {
    "api": CompanionApiError,
    "media": MediaError,
    "install": InstallError,
    "store": StoreError,
    "settings": SettingsError,
    "jobs": JobsError,
    "daemon": DaemonError,
    "cli": CliError,
}
# Control flow of one module, raised and caught there alone: they never cross it.
PRIVATE = {"companion.api.download": {"_Refused", "_Unavailable", "_Restart"}}
# A node of a drawn tree: its lead (one "│   " or "    " a level), its connector, its name.
NODE = re.compile(r"^(?P<lead>(?:[│ ]   )*)[├└]── (?P<name>\w+)(?P<rest>.*)$")


@functools.cache
def _modules() -> dict[str, types.ModuleType]:
    return {
        info.name: importlib.import_module(info.name)
        for info in pkgutil.walk_packages(companion.__path__, "companion.")
        if info.name != "companion.__main__"  # running it is the command line
    }


def _exceptions(module: types.ModuleType) -> list[type[BaseException]]:
    return [
        value
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, BaseException)
        and value.__module__ == module.__name__
    ]


def _errors_modules() -> dict[str, types.ModuleType]:
    return {
        name: module
        for name, module in _modules().items()
        if name.endswith(".errors") and _exceptions(module)
    }


def _tree(doc: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The tree a docstring draws: its root, and each node as (name, parent, the rest of
    its line)."""
    lines = doc.splitlines()
    first = next(i for i, line in enumerate(lines) if "── " in line)
    root_line = lines[first - 1]
    indent = len(root_line) - len(root_line.lstrip())
    root = root_line.split()[0]
    path, nodes = [root], []
    for line in lines[first:]:
        if not line.strip():
            break
        drawn = line[indent:]
        found = NODE.match(drawn)
        if found is None:  # a note's second line, under its node
            assert re.match(r"^[│ ]+\S", drawn), f"not a node of the tree: {line!r}"
            continue
        depth = len(found["lead"]) // 4 + 1
        assert depth <= len(path), f"a node without its parent: {line!r}"
        del path[depth:]
        nodes.append((found["name"], path[-1], found["rest"]))
        path.append(found["name"])
    return root, nodes


def test_every_exception_lives_in_its_layers_errors_module() -> None:
    strays = [
        f"{name}.{cls.__name__}"
        for name, module in _modules().items()
        for cls in _exceptions(module)
        if name != f"companion.{name.split('.')[1]}.errors"
        and cls.__name__ not in PRIVATE.get(name, set())
    ]
    assert strays == []
    # A class defined in a function or a class escapes the walk above: none is an error.
    known = {cls.__name__ for module in _modules().values() for cls in _exceptions(module)}
    known |= {
        n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)
    }
    nested = []
    for path in (REPO / "companion").rglob("*.py"):
        tree = ast.parse(path.read_text())
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            bases = {ast.unparse(b).split(".")[-1] for b in getattr(node, "bases", [])}
            if isinstance(node, ast.ClassDef) and id(node) not in top and bases & known:
                nested.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}")
    assert nested == []


def test_each_errors_module_draws_its_tree() -> None:
    modules = _errors_modules()
    assert {name.split(".")[1] for name in modules} == {*FAMILIES, "sandbox"}
    for name, module in modules.items():
        assert module.__doc__, name
        root, nodes = _tree(module.__doc__)
        classes = {cls.__name__: cls for cls in _exceptions(module)}
        drawn = [node for node, _, _ in nodes]
        assert sorted(drawn) == sorted(classes), f"{name}: the tree names {drawn}"
        for node, parent, rest in nodes:
            first, *more = classes[node].__bases__
            assert parent == first.__name__, f"{name}: {node} is a {first.__name__}"
            # Further parents (ValueError, OSError, RuntimeError) are said on the line.
            for base in more:
                assert base.__name__ in rest, f"{name}: {node} is also a {base.__name__}"
        tops = {classes[node].__bases__[0] for node, parent, _ in nodes if parent == root}
        assert [cls.__name__ for cls in tops] == [root], name


def test_each_error_says_itself_in_one_line() -> None:
    errors = [cls for module in _errors_modules().values() for cls in _exceptions(module)]
    assert len(errors) > 70
    for cls in [CompanionError, *errors]:
        doc = vars(cls).get("__doc__")
        assert doc and "\n" not in doc.strip(), f"{cls.__qualname__}: one line of docstring"
    # Raised without a message, an error says its docstring; with one, its message.
    bare = [
        cls
        for cls in errors
        if issubclass(cls, CompanionError)
        and not any("__init__" in vars(c) for c in cls.__mro__ if issubclass(c, CompanionError))
    ]
    assert len(bare) > 20
    for cls in bare:
        assert str(cls()) == cls.__doc__, cls.__qualname__
        assert str(cls("the file is gone")) == "the file is gone"


def _own_errors() -> list[tuple[str, type[BaseException]]]:
    found = []
    for info in pkgutil.walk_packages(companion.__path__, "companion."):
        layer = info.name.split(".")[1]
        if layer in ("sandbox", "__main__") or (layer not in FAMILIES and layer != "runtime"):
            continue  # the sandbox plays the service; its errors are the service's
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
                and not name.startswith("_")
            ):
                found.append((layer, value))
    return found


def test_every_error_stands_in_its_layers_family() -> None:
    errors = _own_errors()
    assert len(errors) > 30
    strays = [
        f"{cls.__module__}.{cls.__name__}"
        for layer, cls in errors
        if not issubclass(cls, FAMILIES.get(layer, CompanionError))
    ]
    assert strays == []
    # The families are apart: no error belongs to two layers.
    for a in FAMILIES.values():
        for b in FAMILIES.values():
            assert a is b or not issubclass(a, b)


def test_the_exit_code_is_read_from_the_tree() -> None:
    assert as_cli_error(ConfigError("config.yaml: budget_per_job: not a number")).code == 2
    refused = ApiStatusError(402, "INSUFFICIENT_CREDITS", "not enough credits")
    assert as_cli_error(refused).code == 3
    assert as_cli_error(TransportError("connection refused")).code == 1
    assert as_cli_error(JobFailed("the install failed")).code == 1
    given = CliError("held", 4)
    assert as_cli_error(given) is given and given.exit_code == 4
