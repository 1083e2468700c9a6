"""The daemon's localhost API, as models; its OpenAPI document is generated from them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from companion.api.schema import ExportOptions, Selection, VideoOptions
from companion.api.schema.images import MAX_REFERENCE_IMAGES
from companion.api.schema.requests import MAX_NEGATIVE_PROMPT, one_click_export
from companion.daemon.finishing import FinishingBody, LoopOut, PaidFinishing
from companion.daemon.schema.fields import Folder
from companion.media import MAX_SPACING, clean_name, is_clean_name

if TYPE_CHECKING:
    from companion.install import Placement
    from companion.jobs import AnimationAsk, CharacterPart, Finishing, JobView, Picture


def _output_name(value: str) -> str:
    if not is_clean_name(value):
        raise ValueError(
            "holds characters a file system or engine refuses, or is too long "
            f"(64 characters at most); use {clean_name(value)!r}"
        )
    return value


# An animation's name: letters and digits of any script are welcome (see clean_name).
OutputName = Annotated[str, AfterValidator(_output_name)]

API_VERSION = "v1"
Engine = Literal["godot", "unity", "unreal", "cocos", "construct", "other"]


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Reply(BaseModel):
    model_config = ConfigDict(extra="allow")


class ProjectIn(Request):
    root: str = Field(min_length=1, max_length=4096, description="absolute project folder")
    engine: Engine = Field(
        default="other",
        description="the engine; left out: the one whose project the folder is "
        "(project.godot; Assets/ and ProjectSettings/), else other",
    )
    target: Folder | None = Field(
        default=None,
        description="default output folder, relative to the root "
        "(Assets/Animations for Unity, animations otherwise)",
    )
    inbox: Folder | None = Field(
        default=None, description="a drop folder to watch, relative to the root"
    )
    poll: bool = Field(default=False, description="poll the inbox (network drives)")
    defaults: dict[str, Any] = Field(
        default_factory=dict,
        description="prompt, export, video, selection for dropped files. Registering "
        "again merges them one level deep: each key given replaces that key whole (an "
        "export given replaces the whole export), a key given as null is removed, the "
        "others are kept.",
    )


class ProjectRef(Request):
    root: str = Field(
        min_length=1, max_length=4096, description="the project's folder, as registered"
    )


class ProjectOut(Reply):
    root: str
    engine: str
    target: str
    inbox: str | None = None


class AnimateIn(PaidFinishing, Request):
    project_root: str = Field(min_length=1, max_length=4096)
    image_path: str | None = Field(
        default=None, max_length=4096, description="an image inside the project"
    )
    image_base64: str | None = Field(default=None, description="or the image itself")
    prompt: str = Field(default="", max_length=8000)
    export: ExportOptions = Field(default_factory=ExportOptions)
    video: VideoOptions = Field(default_factory=VideoOptions)
    selection: Selection = Field(default_factory=Selection)
    target_folder: Folder | None = Field(default=None, description="relative to the project root")
    name: OutputName | None = None
    quote_id: str | None = Field(
        default=None,
        max_length=128,
        description="the quote_id a quote of exactly this body returned; animate refuses "
        "a body that differs from what was priced (409 STALE_QUOTE), spending nothing",
    )
    last_frame_path: str | None = Field(
        default=None,
        max_length=4096,
        description="an image inside the project the video ends on (models that support it)",
    )
    reference_paths: list[Annotated[str, Field(max_length=4096)]] = Field(
        default_factory=list,
        max_length=MAX_REFERENCE_IMAGES,
        description="reference images inside the project (the model may allow fewer)",
    )
    negative_prompt: str = Field(default="", max_length=MAX_NEGATIVE_PROMPT)
    replace: bool = Field(
        default=False,
        description="replace the files the quote listed as conflicts (a user's changed "
        "file): each is moved aside first, under .companion-replaced in the target, and "
        "only if it is still as it was when quoted; without it such a request is refused "
        "(409 CONFLICT) before anything is spent",
    )
    again: bool = Field(
        default=False,
        description="make it again, paid again, even when exactly this (the picture's "
        "bytes, every setting, the name and the folder) was made and its files are still "
        "as written; without it such a request answers that job (200, nothing spent), "
        "and one still under way is joined",
    )

    _one_click = field_validator("export")(one_click_export)

    @model_validator(mode="after")
    def _one_image(self) -> AnimateIn:
        if (self.image_path is None) == (self.image_base64 is None):
            raise ValueError("give exactly one of image_path and image_base64")
        return self


class PaidSettings(Protocol):
    """What a paid job's body (AnimateIn) and a dropped picture's settings both say."""

    prompt: str
    video: VideoOptions
    export: ExportOptions
    selection: Selection
    service_export: bool | None

    def asked(self) -> dict[str, bool]: ...
    def finishing(self) -> Finishing: ...
    def small(self) -> tuple[int | None, int | None] | None: ...


def ask_of(
    said: PaidSettings,
    picture: Picture,
    placement: Placement,
    *,
    negative: str = "",
    character: CharacterPart | None = None,
) -> AnimationAsk:
    """The typed ask of a body or a drop: what it says, the pictures it names (read and
    checked by then), and the project folder its files go into. negative: what should
    not appear (a body's negative_prompt; a drop says none)."""
    from companion.jobs import AnimationAsk, Prompt

    return AnimationAsk(
        picture=picture,
        prompt=Prompt(text=said.prompt, negative=negative),
        video=said.video,
        export=said.export,
        selection=said.selection,
        finishing=said.finishing(),
        frames=said.small(),
        service_export=bool(said.service_export),
        placement=placement,
        character=character,
    )


class BudgetOut(Reply):
    per_job: int | None = Field(description="credits one job may cost unasked (null: no limit)")
    per_day: int | None = Field(description="credits a day may cost unasked (null: no limit)")
    per_month: int | None = Field(
        default=None, description="credits a month may cost unasked (null: no limit)"
    )
    spent_today: int = Field(description="credits charged today")
    over: bool = Field(description="this quote is over a budget: the job waits for approval")


class OutputOut(Reply):
    format: str
    file: str
    installed_path: str | None = None

    @classmethod
    def each(cls, view: JobView) -> list[OutputOut]:
        return [cls(format=o.format, file=o.file, installed_path=o.installed) for o in view.outputs]


class AsideOut(Reply):
    asset: str
    format: str = Field(description="the service's format, quoted: not one known here")
    mime_type: str
    byte_size: int
    path: str | None = Field(
        default=None,
        description="where its bytes were kept, outside the project (None: still at the "
        "service, see note)",
    )
    note: str | None = None


class JobOut(Reply):
    id: str
    state: str
    name: str
    progress: float
    quote: int | None = None
    remote_id: str | None = None
    target_dir: str | None = None
    error: str = Field(
        default="", description="why the job failed or was cancelled; empty when none"
    )
    resource: str | None = Field(
        default=None,
        description="the playable resource in the engine's terms, once installed "
        "(res://... SpriteFrames for Godot, Assets/... AnimationClip for Unity)",
    )
    created_at: str
    updated_at: str
    outputs: list[OutputOut] = Field(default_factory=list)
    preview: bool = Field(
        default=False,
        description="a GIF preview can be made (GET /api/v1/jobs/{id}/preview.gif): the "
        "job is done and installed frames (gif, spritesheet with its JSON, frames_zip)",
    )
    loop: LoopOut | None = Field(default=None, description="with loop: its span and seam")
    kept_aside: list[AsideOut] = Field(
        default_factory=list,
        description="outputs of formats this companion does not know, kept outside the "
        "project and named here; they never fail the job",
    )

    @classmethod
    def of(cls, view: JobView) -> JobOut:
        """The job's view (companion.jobs.view) as the daemon answers it."""
        return cls(
            id=view.id,
            state=view.state,
            name=view.name,
            progress=view.progress,
            quote=view.quote,
            remote_id=view.remote_id,
            target_dir=view.target_dir,
            error=view.error or "",
            resource=view.resource,
            created_at=view.created_at,
            updated_at=view.updated_at,
            outputs=OutputOut.each(view),
            preview=view.preview,
            loop=view.loop,
            kept_aside=[AsideOut.model_validate(e) for e in view.kept_aside],
        )


class JobList(Reply):
    data: list[JobOut]


class ClipOut(Reply):
    kept: bool = Field(description="the paid video is still kept (a re-cut is free)")
    bytes: int = 0
    duration_seconds: float | None = None
    width: int | None = None
    height: int | None = None


class GenerationOut(Reply):
    id: str
    kind: Literal["animate", "recut", "variation"]
    parent: str | None = None
    state: str
    error: str = Field(default="", description="empty when none")
    name: str
    project: str | None = None
    target_dir: str | None = None
    resource: str | None = None
    prompt: str = ""
    negative_prompt: str | None = None
    seed: int | None = None
    model: str | None = None
    settings: dict[str, Any] = Field(description="the request as JSON: enough to fill the form")
    cost_credits: int = Field(description="credits spent (0 for a re-cut)")
    created_at: str
    finished_at: str | None = None
    preview_gif: str | None = None
    clip: ClipOut
    outputs: list[OutputOut] = Field(default_factory=list)
    installable: bool = Field(
        default=False,
        description="paid for, outputs not installed: POST /api/v1/jobs/{id}/retry installs "
        "them free",
    )
    character: dict[str, Any] | None = Field(
        default=None,
        description="a move of a character's set: {character, move, loop, autoplay} (the "
        "Generations lists group a character's moves by it); null otherwise",
    )


class RecutIn(FinishingBody):
    export: ExportOptions = Field(default_factory=ExportOptions)
    selection: Selection = Field(default_factory=Selection)
    name: OutputName | None = None
    target_folder: Folder | None = Field(default=None, description="relative to the project root")
    replace: bool = Field(
        default=False, description="as for animate: move a user's changed file aside"
    )
    padding: int = Field(
        default=0, ge=0, le=MAX_SPACING, description="transparent pixels between sheet frames"
    )


class ImportIn(Request):
    name: OutputName | None = None
    target_folder: Folder | None = None


class ContactSheetIn(Request):
    times: list[float] = Field(min_length=1, max_length=12, description="seconds into the clip")


class AgainIn(Request):
    quote_only: bool = False
    quote_id: str | None = Field(default=None, max_length=128)
    seed: int | None = Field(
        default=None, ge=0, le=2**32 - 1, description="the seed the quote_only reply chose"
    )


class VariationsIn(Request):
    count: int = Field(ge=2, le=8)
    quote_only: bool = False
    quote_id: str | None = Field(default=None, max_length=128)
    seeds: list[int] | None = Field(
        default=None, description="the seeds the quote_only reply chose, sent back"
    )


class GenerationList(Reply):
    data: list[GenerationOut]
    next: str | None = Field(description="give as before= for the next page; null at the end")


class IntRange(Reply):
    min: int
    max: int


class Ceiling(Reply):
    max: float


class Floor(Reply):
    min: float


class RequestLimits(Reply):
    """What a request may ask for, from the models that check it: plugins set their
    fields from this instead of keeping their own numbers."""

    size: IntRange = Field(description="output_width and output_height, in pixels")
    frame_count: IntRange = Field(description="frames of a one-click animation")
    fps: Ceiling = Field(
        description="frames per second; a plugin asking for fps x seconds "
        "frames gets at most frame_count.max of them"
    )
    seconds: Floor = Field(
        description="video duration; it must be above min; no max (the spec shows none): "
        "the lengths the model in use lists, or the service at quote, say"
    )
    padding: IntRange = Field(description="a re-cut's transparent pixels between sheet frames")


class BooksOut(Reply):
    held: int = Field(description="credits held at the service by jobs not settled yet")
    spent_today: int
    spent_month: int
    released_today: int = Field(description="holds given back (cancels) and refunds today")
    released_month: int
    drift: int | None = Field(
        default=None,
        description="how far the service's balance moved beyond what the books account "
        "for, at the last change (0 or null: they agree)",
    )
    drift_since: str | None = None
    disagreement: str | None = Field(
        default=None, description="the sentence saying the books and the service disagree"
    )


class StatusOut(Reply):
    version: str
    api: str = API_VERSION
    mode: Literal["sandbox", "live"]
    service: str
    tier: str | None = None
    balance: int | None = None
    jobs: dict[str, int] = Field(default_factory=dict)
    limits: RequestLimits
    reachable: bool = Field(
        default=True, description="whether the service answered the daemon's last call"
    )
    service_error: str | None = Field(
        default=None, description="why the service is unreachable (work waits meanwhile)"
    )
    next_try: float | None = Field(
        default=None, description="when the daemon looks for the service again (Unix time)"
    )
    books: BooksOut | None = Field(
        default=None, description="the local books against the service's balance"
    )


class StatusLinkOut(Reply):
    url: str = Field(description="the status page, opened with a single-use code")
    expires_in: int = Field(description="seconds the code stays valid")


class ErrorOut(Reply):
    error: dict[str, str]
