"""companion.media is the media engine's front door: every name it offers resolves to
what its module defines, and importing it for a name check loads no codec library."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import types

import companion.media as media


def test_every_offered_name_is_the_defined_object() -> None:
    submodules = {m.name for m in pkgutil.iter_modules(media.__path__)}
    for name in media.__all__:
        assert name not in submodules, f"{name} is also a module's name"
        value = getattr(media, name)
        assert not isinstance(value, types.ModuleType), name
    for name, module in media._LAZY.items():
        defined = getattr(importlib.import_module(f"companion.media.{module}"), name)
        assert getattr(media, name) is defined, name


def test_the_front_door_loads_no_codecs_until_asked() -> None:
    probe = (
        "import sys\n"
        "from companion.media import FILE_SUFFIX, MediaError, clean_name\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('av', 'numpy', 'PIL')))\n"
        "from companion.media import ExportSpec\n"
        "print('numpy' in sys.modules)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    ).stdout.split("\n")
    assert shown[:2] == ["[]", "True"]
