"""Reading a taken drop, on a worker thread: its images (a picture, or a folder of
frames), its settings (a sidecar over the project's defaults, validated like the API's
requests), the job request they make, and the hash of content and settings by which the
same drop is never paid for twice."""

from __future__ import annotations

import hashlib
import json
import stat
from collections.abc import Callable
from dataclasses import dataclass
from glob import escape as glob_escape
from pathlib import Path
from typing import Any

import yaml
from pydantic import ConfigDict, Field, ValidationError, field_validator

from companion.api.schema import ExportOptions, ModelsResponse, Selection, VideoOptions
from companion.api.schema.base import first_error
from companion.api.schema.requests import one_click_export
from companion.daemon.errors import DropError
from companion.daemon.finishing import PaidFinishing
from companion.daemon.inbox.drops import (
    IMAGE_SUFFIXES,
    MAX_SIDECAR_BYTES,
    folder_entries,
    read_image,
    read_regular,
    sidecar_text,
)
from companion.daemon.inbox.names import exists, original, sidecar_beside
from companion.daemon.schema.requests import OutputName, ask_of
from companion.install import Placement, confined
from companion.jobs import JobRequest, Picture
from companion.media import clean_name

FOLDER_SETTINGS = "animation.yaml"


class DropSettings(PaidFinishing):
    """What a sidecar (or the project's drop defaults) may say: the body's fields, with
    in_place, loop and trim as the daemon's animate takes them; anything else is an
    error reported next to the file."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(default="", max_length=8000)
    name: OutputName | None = None
    export: ExportOptions = Field(default_factory=ExportOptions)
    video: VideoOptions = Field(default_factory=VideoOptions)
    selection: Selection = Field(default_factory=Selection)

    _one_click = field_validator("export")(one_click_export)


@dataclass
class Prepared:
    source: Path
    request: JobRequest
    name: str
    digest: str


class DropReader:
    def __init__(
        self,
        root: Path,
        inbox: Path,
        target: Path,
        engine: str,
        defaults: dict[str, Any],
        models: Callable[[], ModelsResponse | None] = lambda: None,
    ) -> None:
        # The kept model listing, when there is one: which listed model keys (as the
        # command line and the API decide it, so every way in builds the same request).
        self.models = models
        self.root = root
        self.inbox = inbox
        self.target = target
        self.engine = engine
        self.defaults = defaults

    def prepare(self, source: Path) -> Prepared:
        """Runs on a worker thread: every read and check of a taken drop."""
        label = original(source)
        folder = stat.S_ISDIR(source.lstat().st_mode)
        stem = label if folder else Path(label).stem
        # Claimed first, so whatever refuses the drop, its sidecar ends beside it.
        sidecar = source / FOLDER_SETTINGS if folder else self._claim_sidecar(source, stem)
        if confined(self.root, self.target) is None:
            raise DropError(
                f"the target folder {self.target} leads outside the project "
                f"{self.root} (a symbolic link); make it a real folder inside the project"
            )
        picture = self._folder_picture(source) if folder else Picture(image=source)
        digest = hashlib.sha256()
        hashes: list[str] = []  # each picture by its bytes: the generation asked for
        for path in (picture.image, picture.last_frame):
            if path:
                data = read_image(path, label if path == source else path.name)
                digest.update(data)
                hashes.append(hashlib.sha256(data).hexdigest())
        for reference in picture.references:
            data = read_image(reference)
            digest.update(data)
            hashes.append(hashlib.sha256(data).hexdigest())
        settings = self._settings(sidecar)
        name = settings.name or clean_name(stem)
        ask = ask_of(settings, picture, Placement(self.engine, self.root, self.target))
        request = JobRequest.animation(ask, self.models())
        request = request.model_copy(update={"generation": request.generation_of(hashes)})
        # The drop's content and settings, hashed as earlier releases did, so a drop made
        # before an upgrade still joins the job it started.
        described = {
            "prompt": settings.prompt,
            "video": settings.video.model_dump(mode="json"),
            "export": settings.export.model_dump(mode="json"),
            "selection": settings.selection.model_dump(mode="json"),
            # Named only when asked, so a drop of before it still hashes as it did.
            **({"finishing": settings.asked()} if settings.asked() else {}),
            **({"frames": settings.small()} if settings.small() else {}),
            **({"palette": settings.palette_json()} if settings.palette else {}),
            **({"service_export": True} if settings.service_export else {}),
        }
        digest.update(json.dumps(described, sort_keys=True).encode())
        return Prepared(source, request, name, digest.hexdigest())

    def _folder_picture(self, folder: Path) -> Picture:
        files = folder_entries(folder, original(folder))
        firsts = [p for p in files if p.stem.lower() == "first"]
        lasts = [p for p in files if p.stem.lower() == "last"]
        references = [p for p in files if p.stem.lower().startswith("ref")]
        others = [p for p in files if p not in firsts + lasts + references]
        first = firsts[0] if firsts else (others[0] if len(others) == 1 else None)
        if first is None:
            raise DropError(
                f"{original(folder)}: name the first frame first.png (the folder "
                "holds no image, or several without a first.*)"
            )
        return Picture(
            image=first, last_frame=lasts[0] if lasts else None, references=references[:8]
        )

    def _claim_sidecar(self, source: Path, stem: str) -> Path:
        """Where the settings of a taken picture are read from. The sidecar moves into
        `.processing/` beside its picture (the same prefix), so it ends in done/ or failed/
        with it and never hands stale settings to a later picture of the same name. While
        another picture of that name still waits in the inbox (hero.png and hero.jpg), a
        regular sidecar is copied instead, so that one gets it too; one that is not a
        regular file is left for it, and refused by each."""
        claimed = sidecar_beside(source, stem)
        waiting: Path = self.inbox / f"{stem}.yaml"
        if exists(claimed) or not exists(waiting):
            return claimed
        siblings = [
            p
            for p in self.inbox.glob(f"{glob_escape(stem)}.*")
            if p.suffix.lower() in IMAGE_SUFFIXES and p.stem == stem
        ]
        if not siblings:
            waiting.rename(claimed)  # a folder or a link moves as it is, never followed
        elif stat.S_ISREG(waiting.lstat().st_mode):
            claimed.write_bytes(read_regular(waiting, MAX_SIDECAR_BYTES))
        else:
            return waiting
        return claimed

    def _settings(self, sidecar: Path) -> DropSettings:
        values: dict[str, Any] = json.loads(json.dumps(self.defaults))
        label = original(sidecar)
        text = sidecar_text(sidecar, label)
        if text is not None:
            try:
                loaded = yaml.safe_load(text) or {}
            except yaml.YAMLError as exc:
                raise DropError(f"{label} is not valid YAML: {exc}") from exc
            if not isinstance(loaded, dict):
                raise DropError(f"{label} must be a mapping (prompt:, export:, ...)")
            values = _merge(values, loaded)
        try:
            settings = DropSettings.model_validate(values)
        except ValidationError as exc:
            param, message = first_error(exc)
            raise DropError(
                f"{label if text is not None else 'the project defaults'}: {param}: {message}"
            ) from exc
        if not settings.prompt.strip():
            # An empty prompt would still be paid for: refuse before anything is quoted.
            raise DropError(
                "no prompt: add one to the project's drop defaults (prompt: under defaults: "
                "in config.yaml, or companion projects add ROOT --defaults "
                '\'{"prompt": "idle breathing"}\'), or drop a '
                f"{label} beside the picture with a prompt: line; nothing was quoted or spent"
            )
        return settings


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged
