"""What a job asks for: one typed `JobRequest`, built by one constructor for every way in.

The command line (`companion animate`, `companion jobs add`, `companion character`), the
daemon's API and the watched inboxes each describe the user's intent as one typed
`AnimationAsk` (its pictures, its prompt, the service's video and export options and
selection, the finishing done here, where its files go) and hand it to
`JobRequest.animation`, so what lands in a project (only the formats asked for, never the
clip video a one-click task also returns) cannot drift between them. New kinds of job (a
re-cut of a kept clip, variations) become new values of `kind` with a constructor of their
own here, each stored in the same `request` column.

The request is only what was asked. What the engine learns on the way (the resolved body,
whether the create went out, the task's final status, the installed resource) lives in the
job's own columns (see companion.store.db)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from companion.api.schema import ExportOptions, ModelsResponse, Selection, VideoOptions
from companion.install import Placement
from companion.jobs.ask import defaults
from companion.jobs.ask.finishing import Finishing
from companion.store import Job, Store

# The paid task kinds a job may buy (see companion.jobs.remote.bought), as the service names them.
VIDEO_GENERATION = "video_generation"
ONE_CLICK = "animation"


class JobKind(StrEnum):
    ANIMATION = "animation"  # paid: a still (and options) sent to the service
    RECUT = "recut"  # free: a kept clip of an earlier job exported again here


class Install(BaseModel):
    """The project a job's results go into, engine-aware (absent: a plain folder)."""

    model_config = ConfigDict(frozen=True)

    engine: str = "other"
    root: str

    def placement(self, target: Path) -> Placement:
        return Placement(self.engine, Path(self.root), target)


class CharacterPart(BaseModel):
    """The part of a character's set one move's job plays (companion.jobs.characters.moves):
    the character, the move's animation name and its loop flag. Local: never part of
    what the service makes, so it never changes what a move's generation costs."""

    model_config = ConfigDict(frozen=True)

    character: str
    move: str
    loop: bool
    autoplay: str  # the move the character's scene plays first (idle, or the first)
    # Every move of the set as asked, in order, and whether it loops: what an engine
    # resource made of several moves (a Unity controller) needs at each move's install.
    # Not part of what makes a move the same again (a move added changes it for all).
    moves: dict[str, bool] = {}


class Picture(BaseModel):
    """The pictures a generation starts from, in the order the service reads them: the
    first frame, the one the video should end on, references."""

    model_config = ConfigDict(frozen=True)

    image: Path
    last_frame: Path | None = None
    references: tuple[Path, ...] = ()

    def paths(self) -> list[Path]:
        """Every picture, in that order."""
        return [self.image, *([self.last_frame] if self.last_frame else []), *self.references]


class Prompt(BaseModel):
    """What should move, and what should not appear (empty: nothing said)."""

    model_config = ConfigDict(frozen=True)

    text: str = ""
    negative: str = ""


class AnimationAsk(BaseModel):
    """A still-to-animation job as a way in asks for it, before anything is filled in
    (see JobRequest.animation). video, export and selection are the service's own
    options, as the user said them (which fields were said decides defaults). finishing:
    the local finishing said (in_place, loop, trim; None or absent: left open, see
    defaults.finishing). frames: sides below the service's 64 px (16 to 63) said.
    service_export: buy and install the service's own export (a one-click) rather than
    the video alone exported here. placement: the project the files go into (None: a
    plain folder). origin: "cli" for the command line's own jobs. character: the move of
    a character's set this job makes."""

    model_config = ConfigDict(frozen=True)

    picture: Picture
    prompt: Prompt
    video: VideoOptions
    export: ExportOptions
    selection: Selection
    finishing: Finishing | None = None
    frames: tuple[int | None, int | None] | None = None
    service_export: bool = False
    placement: Placement | None = None
    origin: str | None = None
    character: CharacterPart | None = None

    def into(self, placement: Placement | None) -> AnimationAsk:
        """This ask with its files going into placement's project (None: a plain folder)."""
        return self.model_copy(update={"placement": placement})


class JobRequest(BaseModel):
    """A job's request as the store keeps it (JSON in the `request` column)."""

    model_config = ConfigDict(frozen=True)

    kind: JobKind = JobKind.ANIMATION
    origin: str | None = None  # "cli" for `companion animate`; the others leave it out
    image: str
    last_frame: str | None = None
    references: list[str] = []
    prompt: str = ""
    negative_prompt: str | None = None
    video: dict[str, Any] = {}
    export: dict[str, Any] = {}
    selection: dict[str, Any] = {}
    # Only these formats are installed when the task succeeded (None: every asset, as a
    # job stored before this field existed asked for).
    install_formats: list[str] | None = None
    install: Install | None = None
    # Provenance the ways in look jobs up by: the same command again, the same drop again.
    fingerprint: str | None = None
    # The digest of the remote part alone (see remote_part): the generation this asks the
    # service for, which one kept clip answers whatever the local part.
    generation: str | None = None
    drop_source: str | None = None
    drop_hash: str | None = None
    drop_note: str | None = None
    # Lineage: the job a re-cut or "again" came from, or the one these are variations of.
    parent: str | None = None
    variation_of: str | None = None
    # Files the user explicitly let this job replace (path -> sha256 as they agreed to
    # it): each is moved aside before the install, and only while it is still that file.
    replace: dict[str, str] | None = None
    # A re-cut's options of the local export the service's options do not carry.
    local_export: dict[str, Any] | None = None
    # A move of a character: its install adds the move to the character's resource.
    character: CharacterPart | None = None
    # The service's own export bought (a one-click) and installed, not the video alone
    # exported here; None (as False): the video alone.
    service_export: bool | None = None

    @classmethod
    def animation(cls, ask: AnimationAsk, models: ModelsResponse | None = None) -> JobRequest:
        """The one way a still-to-animation job is described, whoever asks for it. What
        the settings leave open is filled for the picture (transparency, frame size) and,
        into a project, its engine (see companion.jobs.ask.defaults); this reads the picture.
        models: the live listing when the caller has it (which models key). With local
        finishing on, the clip is exported here, keyed on the colour it is made on, and
        the service's own export is left unused. Frames below the service's 64 px, or a
        small picture's own, are asked of the service at its size and scaled down here
        (defaults.small_frames); local finishing or small frames are made here even when
        the service's own export is bought."""
        image, placement = ask.picture.image, ask.placement
        export, video = ask.export, ask.video
        small = defaults.small_frames(image, export, ask.frames)
        if small is not None:
            export = export.model_copy(update=defaults.service_size(small))
        export, video = defaults.for_picture(
            image,
            export,
            video,
            engine=placement.engine if placement is not None else None,
            models=models,
        )
        chosen = defaults.finishing(
            [f.value for f in export.formats],
            ask.finishing,
            export.transparent.enabled,
            pixel=defaults.pixel_unasked(image),
            service_export=ask.service_export,
        )
        asked: dict[str, Any] = dict(chosen.on())
        pixel = defaults.pixel_facts(image, chosen.palette_json()) if chosen.pixel_art else None
        if pixel is not None:  # the art's grid, palette and place, read once from the picture
            asked["pixel"] = pixel
        if small is not None:
            asked["frame_size"] = list(small)
        return cls._asked(
            JobKind.ANIMATION,
            export,
            ask.selection,
            placement,
            origin=ask.origin,
            image=str(image),
            last_frame=str(ask.picture.last_frame) if ask.picture.last_frame else None,
            references=[str(p) for p in ask.picture.references],
            prompt=ask.prompt.text,
            negative_prompt=ask.prompt.negative or None,
            video=video.model_dump(mode="json", exclude_none=True),
            character=ask.character,
            # Exported here from the video: keyed on the colour it is made on.
            local_export=defaults.recut_local(video.model_dump(mode="json"), export, asked),
            service_export=ask.service_export or None,
        )

    @classmethod
    def recut(
        cls,
        source: JobRequest,
        *,
        parent: str,
        export: ExportOptions,
        selection: Selection,
        placement: Placement | None,
        local_export: Mapping[str, Any] | None = None,
    ) -> JobRequest:
        """A free re-cut of parent's kept clip with another export: the source's picture,
        prompt and video stay (they describe the clip), nothing is sent to the service;
        a clip made on a key colour is keyed out again unless opaque is asked for, and
        its frames stay the size they were made at unless another is asked for. Without
        a placement its files go into a plain folder, as downloaded ones do."""
        export = defaults.recut_export(source.export, export)
        local = defaults.recut_local(source.video, export, local_export) or {}
        made = source.local_export or {}
        chosen = defaults.finishing(
            [f.value for f in export.formats],
            Finishing.kept(local),
            bool(local.get("key_color")) or export.transparent.enabled,
            pixel=bool(made.get("pixel_art")),  # left open: as the clip's job was made
        )
        palette = local.pop("palette", None)
        local = {k: v for k, v in local.items() if k not in (*Finishing.SWITCHES, "pixel")}
        local.update(chosen.on())
        if chosen.pixel_art:  # the art's facts: the source's, else read from its picture
            pixel = made.get("pixel")
            if pixel is None:
                pixel = defaults.pixel_facts(Path(source.image), palette)
            elif palette:
                pixel = defaults.repaletted(pixel, palette)
            if pixel is not None:
                local["pixel"] = pixel
        return cls._asked(
            JobKind.RECUT,
            export,
            selection,
            placement,
            image=source.image,
            prompt=source.prompt,
            video=source.video,
            parent=parent,
            local_export=local or None,
        )

    @classmethod
    def _asked(
        cls,
        kind: JobKind,
        export: ExportOptions,
        selection: Selection,
        placement: Placement | None,
        **fields: Any,
    ) -> JobRequest:
        """What every kind shares: the export and selection as the service reads them,
        only the formats asked for installed, and the project they go into."""
        return cls(
            kind=kind,
            export=export.model_dump(mode="json"),
            selection=selection.model_dump(mode="json"),
            install_formats=[f.value for f in export.formats],  # nothing unasked lands
            install=(
                Install(engine=placement.engine, root=str(placement.project_root))
                if placement is not None
                else None
            ),
            **fields,
        )

    @property
    def finished_here(self) -> bool:
        """A paid animation whose outputs are exported here from its clip (it asks for
        local finishing or frames smaller than the service makes)."""
        local = self.local_export or {}
        here = bool(Finishing.kept(local).on()) or bool(local.get("frame_size"))
        return self.kind == JobKind.ANIMATION and here

    @property
    def pixel_art(self) -> dict[str, Any] | None:
        """The pixel art its frames are made as (grid, palette; see companion.media.pixel),
        None when they are not."""
        local = self.local_export or {}
        pixel = local.get("pixel")
        return dict(pixel) if local.get("pixel_art") and isinstance(pixel, Mapping) else None

    def pixel_note(self) -> str | None:
        """The pixel art found or asked, as a quote says it (None: none)."""
        pixel = self.pixel_art
        if pixel is None:
            return None
        grid = int(pixel.get("grid", 1))
        drawn = f", drawn at {grid}x (its blocks kept)" if grid > 1 else ""
        return (
            f"pixel art: {len(pixel.get('palette', []))} colours{drawn}; frames on its grid "
            "and palette, alpha 0 or 255 (made here, free; --no-pixel-art for smooth frames)"
        )

    def pixel_hint(self) -> str | None:
        """For a picture drawn as pixel art whose frames are made smooth (flat art over a
        sprite's size at 1x, an opaque video, the service's own export): how to ask."""
        if self.pixel_art is not None or self.kind != JobKind.ANIMATION or not self.image:
            return None
        if defaults.picture(Path(self.image)).pixel is None:
            return None
        return (
            "the picture has few flat colours and hard edges, and its frames are made "
            "smooth; --pixel-art keeps it pixel art (free on the same generation)"
        )

    @property
    def buys(self) -> str:
        """The task this request buys: the video alone, exported here (the clip kept is
        then the generated video itself, whatever formats a service returns unasked),
        unless the service's own export is asked for and nothing of it would be thrown
        away (no local finishing, no small frames)."""
        if self.kind == JobKind.ANIMATION and self.service_export and not self.finished_here:
            return ONE_CLICK
        return VIDEO_GENERATION if self.kind == JobKind.ANIMATION else ONE_CLICK

    def descended(self, lineage: Mapping[str, str]) -> JobRequest:
        """This request marked as coming from another job (parent, variation_of)."""
        return JobRequest.model_validate({**self.stored(), **lineage})

    @classmethod
    def of(cls, stored: JobRequest | Mapping[str, Any]) -> JobRequest:
        """A request as stored (or already typed)."""
        return stored if isinstance(stored, JobRequest) else cls.model_validate(dict(stored))

    def stored(self) -> dict[str, Any]:
        """The JSON the store keeps: fields left empty are left out."""
        return self.model_dump(mode="json", exclude_none=True)

    def placement(self, target: Path) -> Placement | None:
        return None if self.install is None else self.install.placement(target)

    def remote_part(self, image_hashes: Sequence[str]) -> dict[str, Any]:
        """What the service is paid to generate: the pictures by their bytes (first, last
        frame, references, in that order), the prompt, the negative prompt and every video
        option (model, length, resolution, transparency, a seed when one was given).
        Frames, fps, range, size, padding, formats, keying, name and folder are not in it:
        they are local work on the clip the companion keeps."""
        return {
            "images": list(image_hashes),
            "prompt": self.prompt,
            "negative_prompt": self.negative_prompt or "",
            "video": self.video,
        }

    def generation_of(self, image_hashes: Sequence[str]) -> str:
        """The fingerprint of the remote part alone: equal for two requests one paid
        generation answers."""
        text = json.dumps(self.remote_part(image_hashes), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def with_fingerprint(self, image_hashes: list[str], name: str, target: str) -> JobRequest:
        """This request marked with what makes it the same command again (every option
        and the target, the images by their bytes rather than their paths) and with the
        generation it asks for (its remote part alone)."""
        described: dict[str, Any] = {
            k: v
            for k, v in self.stored().items()
            if k
            in (
                "origin",
                "prompt",
                "negative_prompt",
                "video",
                "export",
                "selection",
                "install_formats",
                "character",  # a move's loop told otherwise: installed again, not paid
                "local_export",
                "service_export",
            )
        }
        if self.character is not None:
            described["character"] = self.character.model_dump(exclude={"moves"})
        text = json.dumps(
            {"request": described, "images": image_hashes, "name": name, "target": target},
            sort_keys=True,
        )
        return self.model_copy(
            update={
                "fingerprint": hashlib.sha256(text.encode()).hexdigest(),
                "generation": self.generation_of(image_hashes),
            }
        )


def submit(
    store: Store,
    request: JobRequest | Mapping[str, Any],
    *,
    name: str,
    target_dir: Path,
    priority: int = 1,
) -> Job:
    """Record a new job (state new) for the engine to take up."""
    asked = JobRequest.of(request)
    return store.add_job(
        asked.kind.value,
        name,
        asked.stored(),
        priority=priority,
        target_dir=str(target_dir.resolve()),
    )
