"""What POST /quote answers: the price, what pressing animate spends now, and which
earlier job or paid generation answers it instead (see companion.jobs.remote.reuse)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from companion.daemon.schema.requests import BudgetOut, Reply


class RecutOut(Reply):
    source: str = Field(description="the paid generation whose kept clip is re-cut")
    frames: int | None = Field(default=None, description="frames asked for (null: by fps)")
    fps: float | None = Field(default=None, description="frames a second asked for")
    width: int | None = Field(default=None, description="frame width asked for")
    height: int | None = Field(default=None, description="frame height asked for")
    formats: list[str] = Field(default_factory=list, description="the formats it makes")
    finishing: list[str] = Field(
        default_factory=list,
        description="the local finishing it does (in_place, loop, trim), never sent",
    )


class PixelArtOut(Reply):
    palette: list[str] = Field(description="the colours every opaque pixel takes, #rrggbb")
    grid: int = Field(description="picture pixels a side of one art pixel (2 to 4: drawn large)")
    note: str = Field(description="what the frames are made as, in a sentence")


class PaidBecause(Reply):
    why: Literal["none", "evicted", "again"] = Field(
        description="none: no paid generation of this remote part has its clip kept; "
        "evicted: one did, and the clip store's size cap let its clip go; again: the body "
        'says "again": true (a new take)'
    )
    job: str | None = Field(default=None, description="evicted: the job that made it")
    note: str = Field(default="", description="the reason, in a sentence")


Why = Literal["made", "under_way", "paid_not_installed", "recut"]


class EarlierOut(Reply):
    id: str = Field(
        description="the earlier job of exactly this request, or (why: recut) the paid "
        "generation whose kept clip answers its remote part"
    )
    state: str = Field(description="its state now")
    why: Why = Field(
        description="made: done, its outputs still in place (animate answers it, 200); "
        "under_way: animate joins it (200); paid_not_installed: the service made and charged "
        "it but its outputs did not all go in (animate installs them again, free, 202); "
        "recut: a generation of the same remote part (picture, prompt, video options) was "
        "paid for and its clip is kept, or is under way: animate re-cuts that clip with "
        "this body's frames, size, formats, name and folder, free (202)"
    )


class QuoteOut(Reply):
    credits: int = Field(description='the price: what it costs made anew ("again": true)')
    buys: Literal["video_generation", "animation"] = Field(
        default="animation",
        description="what the price buys: video_generation, the video alone, its files "
        "exported here from it; animation, a one-click whose export the service makes",
    )
    spends: int = Field(description="what animate with this body spends now: credits, or 0")
    earlier: EarlierOut | None = Field(
        default=None,
        description="the earlier job of exactly this request (the picture's bytes, every "
        "setting, the name and the target) that animate answers instead of paying again, "
        'spending 0; null when there is none, or the body says "again": true',
    )
    recut: RecutOut | None = Field(
        default=None,
        description="with earlier.why recut: what the free re-cut makes from the kept clip",
    )
    paid_because: PaidBecause | None = Field(
        default=None,
        description="when spends is the price: why no kept clip answers (null when free)",
    )
    pixel_art: PixelArtOut | None = Field(
        default=None,
        description="the picture is pixel art (found, or asked with pixel_art): the frames "
        "are made on its grid and palette, with alpha 0 or 255; null when they are not",
    )
    quote_id: str = Field(
        description="a digest of exactly the request priced (its settings and the image's "
        "bytes); give it to animate, which refuses anything else"
    )
    name: str = Field(default="", description="the animation's name, as the files are named")
    target_dir: str = Field(default="", description="the folder the files go into")
    writes: list[str] = Field(default_factory=list, description="the files it will write")
    conflicts: list[dict[str, str]] = Field(
        default_factory=list,
        description="files it would have to replace that are not the companion's to replace "
        "(path, reason); animate refuses the request (409 CONFLICT, with the same "
        'name_suggestion in its error) before spending, unless it says "replace": true',
    )
    replaces: list[dict[str, str]] = Field(
        default_factory=list,
        description="files of an earlier job of the companion's, unchanged, that this job "
        "will replace without asking, as a re-import would (path, job: the earlier job's id, "
        "name: its animation's name, when known); into a Godot or Unity project also "
        "those of that earlier set the new one does not hold, which the install removes "
        '(one name, one set), marked removed: "true". That generation stays listed, and '
        "its import brings them back, free. Empty when earlier is set (nothing is replaced)",
    )
    name_suggestion: str | None = Field(
        default=None,
        description="when there are conflicts: a name free in that folder (no job took it, "
        "no file of it exists), decided now; give it as name to animate without a conflict",
    )
    balance: int | None = Field(
        default=None, description="credits available now (null: the service did not say)"
    )
    budget: BudgetOut | None = None  # held to by what it spends
