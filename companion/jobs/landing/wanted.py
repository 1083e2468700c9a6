"""Which of a finished task's assets of known formats a job installs.

A request naming its `install_formats` gets only those formats when its task succeeded;
the others stay on the service (companion assets download ID). A task that failed later
on installs whatever it left: the video was paid for, and `companion export` can still
make the formats from it. Formats not known here never reach this choice: they are kept
aside (see task_assets.py)."""

from __future__ import annotations

from companion.api.schema import Asset


def wanted(assets: list[Asset], formats: list[str] | None, succeeded: bool) -> list[Asset]:
    if formats is None or not succeeded:
        return list(assets)
    return [a for a in assets if a.format in formats]
