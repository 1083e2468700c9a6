"""One-click animation end to end: inputs, quote, create, wait, download.

Shared by `companion animate` and the tests. Small images travel inline as Base64 (one
round trip fewer); larger ones are uploaded. Outputs are downloaded into a staging folder
beside --out and moved in only when every one arrived whole; outputs of a failed task are
downloaded too, since a later-stage failure can leave usable ones."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from companion.api.client import Client
from companion.api.keys import new_idempotency_key
from companion.api.schema import (
    AnimationCreate,
    Asset,
    ExportOptions,
    GenerationInput,
    ImageInput,
    Selection,
    Task,
    VideoOptions,
)
from companion.install import downloads, names
from companion.install.tree import NewFilesOnly
from companion.jobs.inputs import ImageReadError, LocalImage

INLINE_LIMIT = 4 * 2**20  # inline below this; the spec allows 10 MiB each, 20 MiB in all


class InputError(Exception):
    """An input image cannot be sent as it is; the message says why."""


@dataclass
class AnimateRequest:
    image: Path
    prompt: str
    export: ExportOptions
    out: Path
    name: str
    last_frame: Path | None = None
    references: list[Path] = field(default_factory=list)
    video: VideoOptions = field(default_factory=VideoOptions)
    selection: Selection = field(default_factory=Selection)
    timeout: float = 900.0


@dataclass
class Output:
    format: str
    path: Path
    bytes: int


@dataclass
class AnimateResult:
    task: Task
    quote: int
    outputs: list[Output]
    refused: list[str] = field(default_factory=list)  # outputs not written as named, and why

    def summary(self) -> dict[str, object]:
        return {
            "status": str(self.task.status),
            "task_id": str(self.task.id),
            "credits": self.task.credits.model_dump(mode="json"),
            "outputs": [
                {"format": o.format, "path": str(o.path), "bytes": o.bytes} for o in self.outputs
            ],
            "refused": self.refused,
        }


def output_names(assets: list[Asset], name: str) -> list[str | None]:
    """File names from our own table by format (None for a format it does not know);
    several assets of one format get _p0, _p1 ..."""
    return names.output_names([a.format for a in assets], name)


async def image_input(client: Client, path: Path, inline_budget: list[int]) -> ImageInput:
    try:
        image = LocalImage.read(path)
    except ImageReadError as exc:
        raise InputError(str(exc)) from exc
    if image.size <= INLINE_LIMIT and image.size <= inline_budget[0]:
        inline_budget[0] -= image.size
        return image.inline()
    return await image.upload(client)


async def build_body(client: Client, request: AnimateRequest) -> AnimationCreate:
    budget = [16 * 2**20]
    first = await image_input(client, request.image, budget)
    last = await image_input(client, request.last_frame, budget) if request.last_frame else None
    references = [await image_input(client, p, budget) for p in request.references]
    return AnimationCreate(
        input=GenerationInput(first_frame=first, last_frame=last, reference_images=references),
        prompt=request.prompt,
        video=request.video,
        export=request.export,
        selection=request.selection,
        metadata={"name": request.name},
    )


async def animate(
    client: Client,
    request: AnimateRequest,
    on_progress: Callable[[Task], None] | None = None,
    on_quote: Callable[[int], None] | None = None,
) -> AnimateResult:
    await client.refresh_limits()
    body = await build_body(client, request)
    quote = await client.quote_animation(body)
    if on_quote is not None:
        on_quote(quote.credits)
    payload = body.model_dump_json().encode()  # the exact bytes every attempt sends
    task = await client.create_animation(payload, idempotency_key=new_idempotency_key("animate"))
    if on_progress is not None:
        on_progress(task)
    task = await client.wait_for_task(task, timeout=request.timeout, on_progress=on_progress)
    refused: list[str] = []
    outputs = await download_outputs(client, task.outputs, request.out, request.name, refused)
    return AnimateResult(task, quote.credits, outputs, refused)


async def download_outputs(
    client: Client, assets: list[Asset], out: Path, name: str, refused: list[str] | None = None
) -> list[Output]:
    """Outputs of known formats, named from our table, moved into out only when all
    arrived; an unknown format is never written, and an existing file never replaced
    (the output goes beside it): each such case is added to refused."""
    refused = refused if refused is not None else []
    if not assets:
        return []
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    try:
        fetched = []
        for asset, file_name in zip(assets, output_names(assets, name), strict=True):
            if file_name is None:
                refused.append(
                    f"output of unknown format {names.shown(asset.format)} (asset {asset.id}) "
                    "was not written"
                )
                continue
            path = await client.download_asset(asset, staging / file_name)
            fetched.append((asset, path))
        out.mkdir(parents=True, exist_ok=True)
        outputs = []
        for asset, path in fetched:
            placed = downloads.place(out, path.name, path, None, NewFilesOnly())
            if placed.refused is not None:
                refused.append(f"{placed.refused}, so {placed.path.name} was put beside it")
            outputs.append(Output(asset.format, placed.path, placed.path.stat().st_size))
        return outputs
    finally:
        shutil.rmtree(staging, ignore_errors=True)
