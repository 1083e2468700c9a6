"""The local finishing of a job, done here from the clip and never sent to the service:
frames held in place, the loop's seamless span, trimmed sheets, pixel art kept on its
grid and palette, and frames smaller than the service makes. One typed model for every
way in (the daemon's bodies and a drop's settings are made of it, the command line's
flags read into it) and for the job request, which keeps the finishing on in its
local_export under the same names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, Field, StringConstraints

from companion.api.schema.export import LOCAL_MIN_SIDE, MIN_OUTPUT_SIDE

HexColour = Annotated[str, StringConstraints(pattern=r"^#?[0-9a-fA-F]{6}$")]
MAX_PALETTE = 256


class Finishing(BaseModel):
    """Each switch None when left open: the request decides it for its formats (an
    engine pack is trimmed and, transparent, held in place: companion.jobs.ask.defaults.
    finishing)."""

    SWITCHES: ClassVar[tuple[str, ...]] = ("in_place", "loop", "trim", "pixel_art")

    in_place: bool | None = Field(
        default=None,
        description="hold the character still: the camera's shake, drift and zoom taken out "
        "by registering every frame on the character's core (a local export; left out: on "
        "for a transparent engine pack)",
    )
    loop: bool | None = Field(
        default=None,
        description="export the span of the selection whose last frame flows into its "
        "first; the job's loop says which and its seam (a local export)",
    )
    trim: bool | None = Field(
        default=None,
        description="sheet frames cut to their visible pixels with their place recorded "
        "(nothing moves in an engine), identical frames stored once (a local export; left "
        "out: on for an engine pack)",
    )

    pixel_art: bool | None = Field(
        default=None,
        description="keep pixel art pixel art: every frame on the picture's grid (a picture "
        "drawn at 2x and up keeps its blocks), every opaque pixel a palette colour, alpha 0 "
        "or 255 (a local export; left out: on for pixel art, hard alpha and few colours, "
        "drawn on a grid at 2x and up or at 1x up to 64 px; a re-cut keeps its source's)",
    )
    palette: list[HexColour] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PALETTE,
        description="with pixel_art: the colours frames are drawn in, as #rrggbb (the "
        "command line's --palette reads a .gpl, .hex or PNG swatch into it); left out: "
        "the picture's own",
    )

    frame_width: int | None = Field(
        default=None,
        ge=LOCAL_MIN_SIDE,
        lt=MIN_OUTPUT_SIDE,
        description="set from export.output_width below the service's 64 px (16 to 63): "
        "the service is asked for 64 px or more, and the frames are scaled down here",
    )
    frame_height: int | None = Field(
        default=None,
        ge=LOCAL_MIN_SIDE,
        lt=MIN_OUTPUT_SIDE,
        description="as frame_width, from export.output_height",
    )

    @classmethod
    def kept(cls, local: Mapping[str, Any]) -> Finishing:
        """The switches a request's local_export keeps (only those on are written) or a
        re-cut's local options say (None: left open)."""
        return cls(**{k: bool(local[k]) for k in cls.SWITCHES if local.get(k) is not None})

    def palette_json(self) -> list[str] | None:
        """The palette said, as a request keeps it (#rrggbb, lower case)."""
        if self.palette is None:
            return None
        return ["#" + c.lstrip("#").lower() for c in self.palette]

    def finishing(self) -> Finishing:
        """The finishing alone, of a body or settings made of it."""
        return Finishing.model_validate(self.model_dump(include=set(Finishing.model_fields)))

    def small(self) -> tuple[int | None, int | None] | None:
        """The sides asked below the service's 64 px (None: none was)."""
        if self.frame_width is None and self.frame_height is None:
            return None
        return self.frame_width, self.frame_height

    def asked(self) -> dict[str, bool]:
        """The switches said, on or off; those left open are left out."""
        said = {k: getattr(self, k) for k in self.SWITCHES}
        return {k: bool(v) for k, v in said.items() if v is not None}

    def switches(self) -> dict[str, bool]:
        """Every switch, one left open as off (a decided finishing has none open)."""
        return {k: bool(getattr(self, k)) for k in self.SWITCHES}

    def on(self) -> dict[str, bool]:
        """The switches on, as a request's local_export keeps them."""
        return {k: True for k, v in self.switches().items() if v}
