"""What each asset of a finished task is, known by what it is, never by its place in
`outputs` (spec 2.1: no order) nor by a format name alone (2.4: formats are "values
seen"): the generated video (a video with measured media that the export did not ask
for), the outputs the job installs under names of our own, and those of a format this
companion does not know, kept aside (see aside.py) instead of failing the job."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.api.schema import Asset, CreditUsage
from companion.install import output_names
from companion.media import FILE_SUFFIX

CLIP_FORMAT = "clip_video"  # the table's video format: how a generated video is named


def is_video(asset: Asset) -> bool:
    """A video by what it is: its media type (2.4: `media` may be null even for a
    video, "for unknown values", so it only ranks videos, see generated_video)."""
    return asset.mime_type.lower().startswith("video/")


def asked_formats(resolved: dict[str, Any] | None) -> set[str]:
    """The formats the create body's export asked for (none for a body without one)."""
    export = (resolved or {}).get("export") or {}
    return {str(f) for f in export.get("output_formats") or []}


def generated_video(outputs: list[Asset], asked: set[str], succeeded: bool) -> Asset | None:
    """The task's whole generated video: a video its export did not ask for (an asked
    clip_video is the export of the selection at the output size, 2.8 and 2.9). A task
    that failed later keeps the video its first stage made (2.1: usable outputs may
    remain), so there any video answers when no unasked one does."""
    videos = [a for a in outputs if is_video(a)]
    unasked = [a for a in videos if a.format not in asked]
    pool = unasked or ([] if succeeded else videos)
    if not pool:
        return None

    def size(asset: Asset) -> tuple[float, int]:
        media = asset.media
        if media is None:
            return 0.0, 0
        seconds = float(media.duration_seconds or 0)
        return seconds, int(media.width or 0) * int(media.height or 0)

    return max(pool, key=size)  # several: the longest, largest one is the whole video


def paid(credits: CreditUsage) -> bool:
    """The task's credits show a charge, or a hold not yet settled that may become one
    (2.3: the final charge can post after the end)."""
    return credits.charged > 0 or (credits.held > 0 and credits.status in (None, "held"))


def wanted(assets: list[Asset], formats: list[str] | None, succeeded: bool) -> list[Asset]:
    """Which of these assets of known formats a job installs. A request naming its
    `install_formats` gets only those formats when its task succeeded; the others stay on
    the service (companion assets download ID). A task that failed later on installs
    whatever it left: the video was paid for, and `companion export` can still make the
    formats from it."""
    if formats is None or not succeeded:
        return list(assets)
    return [a for a in assets if a.format in formats]


@dataclass(frozen=True)
class Sorted:
    """A finished task's outputs by what each is."""

    install: list[tuple[Asset, str]]  # into the project, under these file names
    clip: Asset | None  # the generated video, kept for free re-cuts
    aside: list[Asset]  # of formats not known here: kept aside, named in the report


def sort_outputs(
    outputs: list[Asset],
    *,
    asked: set[str],
    install_formats: list[str] | None,
    succeeded: bool,
    finished_here: bool,
    name: str,
) -> Sorted:
    clip = generated_video(outputs, asked, succeeded)
    rest = [a for a in outputs if a is not clip]
    aside = [a for a in rest if a.format not in FILE_SUFFIX]
    known = [a for a in rest if a.format in FILE_SUFFIX]
    if finished_here and succeeded:
        # Its outputs are exported here from the kept clip; the service's stay there.
        return Sorted([], clip, aside)
    chosen = wanted(known, install_formats, succeeded)
    if clip is not None and (not succeeded or wanted([clip], install_formats, True)):
        # A task that failed later lands the paid video it made; a succeeded one lands it
        # when every format is installed. It is named as our table names a video.
        chosen.append(clip)
    shown = [a.format if a.format in FILE_SUFFIX else CLIP_FORMAT for a in chosen]
    names = output_names(shown, name)
    return Sorted(
        [(a, n) for a, n in zip(chosen, names, strict=True) if n is not None], clip, aside
    )
