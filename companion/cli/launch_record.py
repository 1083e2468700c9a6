"""The command of this companion, recorded in its home (command.json) by `companion
plugin install`, so an editor's Start daemon runs the companion that installed its
plugin, absolute, even when it lives in a virtual environment that is not on PATH (the
editor's `companion` on PATH was not found after the README's install)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

RECORD = "command.json"  # read by the Godot dock and the Unity window


def own_command() -> list[str]:
    """This companion as a command line: its console script when it was run as one,
    else this Python interpreter with `-m companion`; absolute either way."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.stem == "companion":
        for candidate in (script, script.with_suffix(".exe")):
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return [str(candidate.absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "companion"]


def record_command(home: Path) -> list[str]:
    """Writes home/command.json ({"command": [...]}) at once, whole or not at all; the
    command recorded."""
    command = own_command()
    home.mkdir(parents=True, exist_ok=True)
    path = home / RECORD
    fd, temporary = tempfile.mkstemp(dir=home, prefix=f".{RECORD}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"command": command}, out)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return command
