"""The --formats flag: names checked (with a guess at a misspelt one), and the formats
that exist for their alpha refused for an opaque result."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from companion.api.formats import FORMAT_NAMES
from companion.cli.errors import UsageError
from companion.cli.options import ALPHA_ONLY_FORMATS

if TYPE_CHECKING:
    from companion.jobs import JobRequest


# What a file of each format is commonly called, for a format named by its file type.
FILE_TYPES = {
    "png": "spritesheet or frames_zip",
    "sheet": "spritesheet",
    "json": "spritesheet_json",
    "webm": "webm_alpha",
    "mov": "prores_4444",
    "prores": "prores_4444",
    "mp4": "clip_video",
    "zip": "frames_zip",
    "frames": "frames_zip",
    "construct": "construct3_pack",
}


def did_you_mean(given: str, names: tuple[str, ...]) -> str | None:
    """The name (or the few names) meant, when close: a file type (png -> spritesheet or
    frames_zip), the start of a name (godot -> godot_pack, unity -> unity_meta or
    unity_pack), or a near spelling (spritesheat -> spritesheet)."""
    import difflib

    text = given.strip().lower().replace("-", "_").lstrip(".")
    if text in FILE_TYPES:
        return FILE_TYPES[text]
    starting = [n for n in names if n.startswith(text) or text.startswith(n)]
    if 1 <= len(starting) <= 3:
        return " or ".join(starting)
    close = difflib.get_close_matches(text, names, n=1, cutoff=0.75)
    return close[0] if close else None


def formats_from(text: str, transparent: bool | None) -> list[str]:
    """The formats named, checked; transparent None: not yet known (the picture decides
    it: see request_has_alpha)."""
    formats = [f.strip() for f in text.split(",") if f.strip()]
    if not formats:
        raise UsageError(f"--formats: give at least one format, from: {', '.join(FORMAT_NAMES)}")
    unknown = [f for f in formats if f not in FORMAT_NAMES]
    if unknown:
        guesses = {u: g for u in unknown if (g := did_you_mean(u, FORMAT_NAMES))}
        if len(unknown) == 1:
            meant = "".join(guesses.values())
        else:  # which guess is for which name
            meant = "; ".join(f"{g} for {u!r}" for u, g in guesses.items())
        raise UsageError(
            f"--formats: {', '.join(repr(u) for u in unknown)} "
            + ("is not a format" if len(unknown) == 1 else "are not formats")
            + (f"; did you mean {meant}?" if meant else "")
            + f" (formats: {', '.join(FORMAT_NAMES)})"
        )
    if transparent is False:
        alpha_formats_have_alpha(formats, False)
    return formats


def alpha_formats_have_alpha(formats: Iterable[str], transparent: bool, why: str = "") -> None:
    """WebM with alpha and ProRes 4444 exist for their alpha: refused for an opaque
    result, before anything is spent. why: what made the result opaque, when not said."""
    alpha_only = [f for f in formats if f in ALPHA_ONLY_FORMATS]
    if alpha_only and not transparent:
        raise UsageError(
            f"--formats {','.join(alpha_only)} exists for transparency{why}: add "
            "--transparent (or choose gif, frames_zip or spritesheet)"
        )


def request_has_alpha(request: JobRequest, picture: Path) -> None:
    """The alpha-only formats of a one-click request, whose transparency the picture
    decided unless it was said (see formats_from)."""
    transparent = bool(request.export["transparent"]["enabled"])
    why = f": {picture.name} has no transparent pixels"
    alpha_formats_have_alpha(request.install_formats or [], transparent, why)
