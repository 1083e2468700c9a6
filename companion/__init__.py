"""companion: turn still images into game-ready animations from inside a game editor."""

import importlib
import os
from collections.abc import Callable, Mapping
from typing import Any

__version__ = "0.1.0"

# NumPy's BLAS starts a thread per core as it loads, 0.15 s of CPU in every command and
# daemon; the media code multiplies only thin matrices, on worker threads of its own.
# Set before anything imports NumPy; a value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def front_door(
    package: str, namespace: dict[str, Any], names: Mapping[str, str | tuple[str, str]]
) -> Callable[[str], Any]:
    """The module __getattr__ of a package's front door: each name in names is loaded
    from its module (a module name, or (module, the name it has there)) on first use and
    then kept as a plain attribute, so importing the package costs nothing until then."""

    def load(name: str) -> Any:
        found = names.get(name)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attr = (found, name) if isinstance(found, str) else found
        value = getattr(importlib.import_module(f"{package}.{module}"), attr)
        namespace[name] = value
        return value

    return load


class CompanionError(Exception):
    """The companion refused or failed on purpose."""

    # Each layer has one family under this root, drawn in the layer's errors module
    # (api, media, install, store, settings, jobs, daemon, cli). exit_code: what the
    # command line exits with when one reaches it (see cli/errors.py).
    exit_code = 1

    def __str__(self) -> str:
        # Raised without a message, an error says its class's docstring: the nearest
        # class in the tree that has one.
        if self.args:
            return super().__str__()
        for cls in type(self).__mro__:
            if cls.__doc__ and issubclass(cls, CompanionError):
                return " ".join(cls.__doc__.split())
        return ""
