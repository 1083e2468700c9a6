"""Which of a finished task's assets a job installs.

A one-click task also returns the generated video (`clip_video`) whatever the export
asked for. A request naming its `install_formats` gets only those formats when its task
succeeded; the others stay on the service (companion assets download ID). A task that
failed later on installs whatever it left: the video was paid for, and
`companion export` can still make the formats from it."""

from __future__ import annotations

from companion.api.schema import Asset
from companion.media import FILE_SUFFIX


def wanted(assets: list[Asset], formats: list[str] | None, succeeded: bool) -> list[Asset]:
    if formats is None or not succeeded:
        return list(assets)
    # A format our table does not know is kept, so the engine names it in the job's
    # error instead of it vanishing as "not asked for".
    return [a for a in assets if a.format in formats or a.format not in FILE_SUFFIX]
