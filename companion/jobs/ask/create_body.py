"""A job's request as the service's create body: each image uploaded once per content
hash and account and its file_id reused, small ones inline as Base64 (one round trip
fewer), an upload cut by a transport error never replayed (the image goes inline if it
fits, or the job fails saying so). A file id the service answers 404 for (its retention
is not shown, spec 8) is forgotten and the image uploaded again, once. Part of the
Engine (see engine.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from companion.api.errors import NotFoundError, UncertainRequestError
from companion.api.schema import AnimationCreate, FileImageInput, ImageInput, QuoteResponse
from companion.jobs.ask.inputs import LocalImage
from companion.jobs.ask.request import VIDEO_GENERATION, JobRequest
from companion.jobs.errors import ImageReadError, JobFailed
from companion.jobs.remote.bought import generation_quote
from companion.store import Job
from companion.store.account import SharedAccount

if TYPE_CHECKING:
    from companion.api.client import Client

log = logging.getLogger("companion.jobs")

INLINE_LIMIT = 256 * 1024  # below this an image travels inline; above, upload once, reuse
INLINE_FALLBACK_LIMIT = 10 * 2**20  # the spec's per-image inline limit
Answer = TypeVar("Answer")


class BodySteps:
    """The Engine's making of create bodies."""

    client: Client
    account: SharedAccount
    _uploaded: dict[str, str]  # file id by sha256 of the pictures in this engine's bodies

    async def _body(self, job: Job) -> AnimationCreate:
        return await self.body_for(job.request, name=job.name, job_id=job.id)

    async def quote(self, request: JobRequest | Mapping[str, Any], name: str) -> int:
        """What a request would cost, without creating anything: the price of what it
        buys (JobRequest.buys)."""
        buys = JobRequest.of(request).buys
        _, quote = await self.with_files(
            lambda: self.body_for(request, name=name, job_id=None),
            lambda body: self.price(body, buys),
        )
        return quote.credits

    async def with_files(
        self,
        make: Callable[[], Awaitable[AnimationCreate]],
        send: Callable[[AnimationCreate], Awaitable[Answer]],
    ) -> tuple[AnimationCreate, Answer]:
        """The body made and sent; answered 404 while it names uploaded files, those file
        ids are forgotten, the body made again (uploading them anew) and sent once more.
        For a quote, safe to send twice: a 404 means nothing was made (a create does the
        same with a new key, see RemoteSteps._renew_files)."""
        body = await make()
        try:
            return body, await send(body)
        except NotFoundError:
            if not await self.forget_files(body):
                raise
        body = await make()
        return body, await send(body)

    async def forget_files(self, body: AnimationCreate) -> bool:
        """The uploaded file ids body names forgotten (the service answered 404 for one),
        so the next body made uploads their images anew; False when it names none."""
        files = _file_ids(body)
        if not files:
            return False
        owner = await self._owner()
        for sha256, file_id in list(self._uploaded.items()):
            if file_id in files:
                log.info("file %s is gone at the service; uploading its image again", file_id)
                await self.account.forget_upload(owner, sha256, file_id)
                del self._uploaded[sha256]
        return True

    async def _owner(self) -> str:
        """The account at the service that owns this client's uploads."""
        account = self.client.account or await self.client.refresh_limits()
        return str(account.id)

    async def price(self, body: AnimationCreate, buys: str) -> QuoteResponse:
        """The service's quote of body as the task it buys: a video generation is priced
        by its own quote (no export is bought), a one-click by the whole body."""
        if buys == VIDEO_GENERATION:
            return await self.client.quote_video_generation(generation_quote(body))
        return await self.client.quote_animation(body)

    async def body_for(
        self, request: JobRequest | Mapping[str, Any], *, name: str, job_id: str | None
    ) -> AnimationCreate:
        asked = JobRequest.of(request)
        first = await self._image(Path(asked.image))
        last = await self._image(Path(asked.last_frame)) if asked.last_frame else None
        references = [await self._image(Path(p)) for p in asked.references]
        metadata: dict[str, str] = {"name": name}
        if job_id is not None:
            metadata["companion_job"] = job_id  # how an uncertain create is found again
        return AnimationCreate.model_validate(
            {
                "input": {
                    "first_frame": first.model_dump(mode="json"),
                    "last_frame": last.model_dump(mode="json") if last else None,
                    "reference_images": [r.model_dump(mode="json") for r in references],
                },
                "prompt": asked.prompt,
                **({"negative_prompt": asked.negative_prompt} if asked.negative_prompt else {}),
                "video": asked.video,
                "export": asked.export,
                "selection": asked.selection,
                "metadata": metadata,
            }
        )

    async def _image(self, path: Path) -> ImageInput:
        try:
            image = await asyncio.to_thread(LocalImage.read, path)  # off the event loop
        except ImageReadError as exc:
            raise JobFailed(str(exc)) from exc
        small = image.size <= INLINE_LIMIT
        owner = await self._owner()
        known = await self.account.upload_for(owner, image.sha256, claim=not small)
        if known is not None:
            self._uploaded[image.sha256] = known
            return FileImageInput(file_id=known)
        if small:
            return image.inline()
        try:
            uploaded = await image.upload(self.client)
        except Exception as exc:
            await self.account.drop_claim(owner, image.sha256)  # another member may try it
            if not isinstance(exc, UncertainRequestError):
                raise
            if image.size <= INLINE_FALLBACK_LIMIT:
                log.info("upload of %s was cut off; sending it inline instead", path.name)
                return image.inline()
            raise JobFailed(
                f"{path}: the upload was cut off and the image is too large to "
                "send inline; try again"
            ) from exc
        await self.account.remember_upload(owner, image.sha256, str(uploaded.file_id))
        self._uploaded[image.sha256] = str(uploaded.file_id)
        return uploaded


def _file_ids(body: AnimationCreate) -> set[str]:
    given = body.input
    images = [given.first_frame, given.last_frame, *given.reference_images]
    return {str(i.file_id) for i in images if isinstance(i, FileImageInput)}
