"""The local finishing a re-cut may ask for, and what a loop reports back: frames held in
place, the seamless span of the clip, trimmed sheets. The service never sees them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


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

    def asked(self) -> dict[str, bool]:
        """The finishing said (on or off); left out, the request decides it (an engine
        pack is trimmed and, transparent, held in place: see companion.jobs.defaults)."""
        said = {k: getattr(self, k) for k in ("in_place", "loop", "trim")}
        return {k: bool(v) for k, v in said.items() if v is not None}


class LoopOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    start: float = Field(description="seconds into the clip: the loop's first frame")
    end: float = Field(description="seconds: the frame after its last (the first again)")
    seam: float = Field(
        description="the last frame into the first, in median steps between neighbouring "
        "frames: 1 flows like any step, above 1.5 shows"
    )
