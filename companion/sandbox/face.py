"""The sandbox's two faces: how it answers the details the spec leaves open.

The spec (service-api.md) leaves many details open: values it calls "seen", shapes it
calls "not shown", lists with no order, waits with no bound. A client written against
one answer to each of them breaks on a service that answers another way and still keeps
to the spec. So the sandbox answers every open detail one of two ways:

- `default`: the generous answer (the one the sandbox always gave), documented in
  docs/sandbox.md;
- `latitude`: the other way, still within the spec, for the tests: whatever the client
  needs to be right about, it must be right about on both faces.

Each member below is one open detail; its default value is the default face's answer.
`companion sandbox --face latitude`, `SandboxConfig(face="latitude")`, and for the
embedded sandbox COMPANION_SANDBOX_FACE=latitude choose the latitude face.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class Face:
    """One answer to each open detail of the spec."""

    name: str = "default"

    # -- tasks and their outputs (spec 2.1, 2.4, 2.8, 2.9) ------------------------------
    # A one-click task returns the generated video (as `clip_video`) whatever its export
    # asked for; latitude: only the formats its export asked for.
    unasked_video: bool = True
    # A one-click's `clip_video` asked for is the whole generated video; latitude: the
    # export of the selection at the output size (2.9: the selection is the interval
    # chosen after generation), as every other export format is. The runner has always
    # answered the latitude way when it is asked (the export's clip replaces the
    # generated video), so both faces do: the default stays as the sandbox was.
    clip_is_generated_video: bool = True
    # The format a video generation's own video is returned as ("values seen":
    # clip_video); latitude: another name, so a client must know it by its media.
    generated_video_format: str = "clip_video"
    # Outputs in the order they were made; latitude: reversed (2.1: no order).
    outputs_in_order: bool = True
    # Only formats of 2.8 and the generated video; latitude: an extra asset of a format
    # the client does not know (2.4: "values seen").
    extra_output_format: str | None = None
    # Credits final at the first terminal read; latitude: `credits.status` stays `held`
    # (charged 0) for this many seconds after the end, then the charge is posted (2.3).
    credits_posted_after: float = 0.0
    # The hold at create equals the quote; otherwise creation recalculates it by this
    # share (at least one credit; 4.4: "creation recalculates the price"). Latitude:
    # down, so what the user approved holds and the books must follow the created price
    # rather than the quote; a rise (what a client must cancel at once unless a margin
    # allows it) is the same member set above 0 (tests/integration/sandbox/test_books_service.py).
    create_price_rise: float = 0.0

    # -- creates and lists (spec 4.5, 4.7, 7) --------------------------------------------
    # A resent create of a key whose original is still being accepted gets 409
    # IDEMPOTENCY_IN_PROGRESS; this many seconds after the original was accepted
    # (7: "wait and resend", no bound given).
    in_progress_seconds: float = 0.0
    # Lists are newest first; latitude: oldest first (2.2: no order).
    lists_newest_first: bool = True
    # Tasks of other clients of the account already there when the sandbox starts
    # (latitude: enough that a client reading only the first 100 misses its own).
    other_tasks: int = 0
    # A page holds up to `limit` tasks; latitude: at most this many (4.7: page size).
    page_cap: int | None = None

    # -- downloads and files (spec 4.7, 5, 8) ----------------------------------------------
    # Signed downloads are answered as stored; latitude: gzip-encoded (Content-Encoding
    # gzip) whatever the client accepts, identity included, and a Range as a range of the
    # encoded bytes (4.7: the response is not shown, so a real server may).
    gzip_downloads: bool = False
    # A signed URL is served at its first fetch; latitude: the first fetch of each asset's
    # bytes is refused with this status (403; 429 carries Retry-After: 1), and so is every
    # later fetch of that URL; a fresh URL from GET /assets/{id} is served (4.7: the
    # download's errors are not shown; 2.4: refresh with asset lookup).
    first_download_refused: int | None = None
    # An uploaded file id stays usable; latitude: it is forgotten (404) this many seconds
    # after its upload (8: retention not shown).
    file_retention_seconds: float | None = None

    # -- models and limits (spec 2.10, 2.13, 8) --------------------------------------------
    # The model listing's shape (2.13: fields not shown): "default" is ours; latitude
    # "other": another vocabulary (`models` and capabilities nested by name).
    models_shape: str = "default"
    # The first model listed (the one used when none is named) takes `alpha_key`
    # transparency; latitude: it does not, another listed model does (2.10).
    default_model_keys: bool = True
    # Limits the spec does not show: the sandbox's (4096 px a side, 10 s videos);
    # latitude: wider (8192 px, 60 s), so a client enforcing its own guess refuses what
    # the service would take (8).
    max_image_side: int = 4096
    max_video_seconds: float = 10.0


DEFAULT = Face()
LATITUDE = Face(
    name="latitude",
    unasked_video=False,
    clip_is_generated_video=False,
    generated_video_format="source_video",
    outputs_in_order=False,
    extra_output_format="thumbnail_webp",
    credits_posted_after=2.0,
    create_price_rise=-0.25,
    in_progress_seconds=9.0,
    lists_newest_first=False,
    other_tasks=130,
    page_cap=7,
    gzip_downloads=True,
    first_download_refused=403,
    file_retention_seconds=20.0,
    models_shape="other",
    default_model_keys=False,
    max_image_side=8192,
    max_video_seconds=60.0,
)
FACES = {face.name: face for face in (DEFAULT, LATITUDE)}


def face_named(name: str) -> Face:
    try:
        return FACES[name]
    except KeyError:
        raise ValueError(f"unknown sandbox face {name!r}; choose from {', '.join(FACES)}") from None


def with_changes(face: Face, **changes: object) -> Face:
    """A face with some answers changed (a test of one detail)."""
    return dataclasses.replace(face, **changes)  # type: ignore[arg-type]
