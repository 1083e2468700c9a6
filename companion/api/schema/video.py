"""VideoOptions and GenerationTransparency (spec 2.10).

Member types are "not shown" in the spec; these are our choices, kept loose in the few
places where the live model listing decides what is valid. No bound of the spec's is put
on a length: the lengths a model makes come from the listing, or the service says."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from companion.api.schema.base import RequestModel

HEX_COLOUR = re.compile(r"^#?[0-9a-fA-F]{6}$")


class GenerationTransparency(RequestModel):
    """`alpha_key` renders the subject on a key colour that exports can remove."""

    key_color: str | None = None
    key_selection: Literal["auto", "manual"] = "auto"
    mode: Literal["standard", "alpha_key"] = "standard"

    @field_validator("key_color")
    @classmethod
    def _hex(cls, value: str | None) -> str | None:
        if value is not None and not HEX_COLOUR.match(value):
            raise ValueError("key_color must be a hex colour such as #00ff00")
        return None if value is None else "#" + value.lstrip("#").lower()

    @model_validator(mode="after")
    def _manual_needs_colour(self) -> GenerationTransparency:
        if self.key_selection == "manual" and self.key_color is None:
            raise ValueError("key_selection 'manual' needs key_color")
        return self


class VideoOptions(RequestModel):
    duration_seconds: float | None = Field(default=None, gt=0)
    input_canvas: str | None = None
    model: str | None = None
    ratio: str | None = None
    resolution: str | None = None
    seed: int | None = Field(default=None, ge=0, le=2**32 - 1)
    style_preset: str | None = None
    transparency: GenerationTransparency | None = None
    watermark: bool | None = None
