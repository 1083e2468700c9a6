"""The local finishing a re-cut may ask for, and what a loop reports back: frames held in
place, the seamless span of the clip, trimmed sheets. The service never sees them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from companion.api.schema.export import LOCAL_MIN_SIDE, MAX_OUTPUT_SIDE, MIN_OUTPUT_SIDE


class Finishing(BaseModel):
    """Fields of a request body (unknown fields are refused, as in every body)."""

    model_config = ConfigDict(extra="forbid")

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

    @model_validator(mode="before")
    @classmethod
    def _small_sides(cls, data: Any) -> Any:
        """export.output_width or output_height of 16 to 63 px are frames the service does
        not make: taken out of the export (the service's rules) into frame_width and
        frame_height, made here. Under 16 is refused naming the export's field."""
        if not isinstance(data, dict) or not isinstance(data.get("export"), dict):
            return data
        export, moved = dict(data["export"]), {}
        for side, field in (("output_width", "frame_width"), ("output_height", "frame_height")):
            value = export.get(side)
            if isinstance(value, int) and not isinstance(value, bool) and value < MIN_OUTPUT_SIDE:
                if value < LOCAL_MIN_SIDE:
                    raise ValueError(
                        f"export.{side}: {value} px is below {LOCAL_MIN_SIDE}, the smallest "
                        f"frame made (16 to {MAX_OUTPUT_SIDE})"
                    )
                moved[field] = export.pop(side)
        return {**data, "export": export, **moved} if moved else data

    def small(self) -> tuple[int | None, int | None] | None:
        """The sides asked below the service's 64 px (None: none was)."""
        if self.frame_width is None and self.frame_height is None:
            return None
        return self.frame_width, self.frame_height

    def asked(self) -> dict[str, bool]:
        """The finishing said (on or off); left out, the request decides it (an engine
        pack is trimmed and, transparent, held in place: see companion.jobs.ask.defaults)."""
        said = {k: getattr(self, k) for k in ("in_place", "loop", "trim")}
        return {k: bool(v) for k, v in said.items() if v is not None}


class PaidFinishing(Finishing):
    """The fields of a paid request's body: the finishing, and what the service sells."""

    service_export: bool | None = Field(
        default=None,
        description="buy the service's own export of the formats and install it (a "
        "one-click animation); left out or false: the video alone is bought and exported "
        "here, which keeps the generated video for free re-cuts whatever the service "
        "returns (local finishing and frames under 64 px are made here either way)",
    )


class LoopOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    start: float = Field(description="seconds into the clip: the loop's first frame")
    end: float = Field(description="seconds: the frame after its last (the first again)")
    seam: float = Field(
        description="the last frame into the first, in median steps between neighbouring "
        "frames: 1 flows like any step, above 1.5 shows"
    )
