"""The local finishing (companion.jobs.ask.finishing) as a request body takes it, and what
a loop reports back: the seamless span of the clip and its seam."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from companion.api.schema.export import LOCAL_MIN_SIDE, MAX_OUTPUT_SIDE, MIN_OUTPUT_SIDE
from companion.jobs import Finishing


class FinishingBody(Finishing):
    """The finishing as fields of a request body (unknown fields are refused, as in every
    body)."""

    model_config = ConfigDict(extra="forbid")

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


class PaidFinishing(FinishingBody):
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
