"""A local input image, read once: its bytes, its real media type, and the two ways it
can travel to the service (inline as Base64, or uploaded for a reusable file_id).

Callers decide which way; this module only does the reading and encoding they share,
and the check that a picture decodes whole (the command line's and the daemon's, before
anything is spent). The service's own bound on decoded sizes is "not shown" (spec 8): it
is left to the service, whose 422 the user sees, nothing spent. Only a picture past any
plausible service limit is refused here, for memory, not as the service's rule."""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from PIL import Image, ImageFile, JpegImagePlugin, PngImagePlugin, WebPImagePlugin

from companion.api.schema import Base64ImageInput, FileImageInput
from companion.api.schema.images import sniff_image_type
from companion.jobs.errors import ImageDamaged, ImageReadError

if TYPE_CHECKING:  # a type only: reading a picture needs no HTTP client
    from companion.api.client import Client

# A decompression-bomb guard, not a service limit: a header may declare any size, and
# decoding it (then RGBA for the defaults) would take 4 bytes a pixel. 2**27 pixels
# (11585 x 11585, half a GiB as RGBA) is twice a 8192 x 8192 picture, past what a
# service plausibly takes, and below Pillow's own refusal (2 x Image.MAX_IMAGE_PIXELS).
MAX_PIXELS = 2**27
_OPENERS: dict[str, Callable[[IO[bytes]], ImageFile.ImageFile]] = {
    "image/png": PngImagePlugin.PngImageFile,
    "image/jpeg": JpegImagePlugin.JpegImageFile,
    "image/webp": WebPImagePlugin.WebPImageFile,
}
_UNREADABLE = (OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombError)


def decode_whole(data: bytes, mime: str, label: str) -> None:
    """Refuse a picture that cannot be sent: one whose header declares more pixels than
    is safe to decode (MAX_PIXELS; judged before a pixel is decoded, so a header bomb
    costs nothing), then one that does not decode whole (once), so a truncated or damaged
    file is refused here, naming label, not by the service."""
    damaged = (
        f"{label}: cannot be decoded as an image (damaged, cut short, or still being "
        "written); save it again as PNG, JPEG or WebP"
    )
    try:
        image = _OPENERS[mime](io.BytesIO(data))  # reads the header only
    except _UNREADABLE as exc:
        raise ImageDamaged(damaged) from exc
    with image:
        width, height = image.size
        if width * height > MAX_PIXELS:
            raise ImageReadError(
                f"{label}: declares {width}x{height} pixels, more than the "
                f"{MAX_PIXELS} this companion decodes (memory): scale it down"
            )
        if width < 1 or height < 1:
            raise ImageReadError(f"{label}: declares {width}x{height} pixels; it has no picture")
        try:
            image.load()
        except _UNREADABLE as exc:
            raise ImageDamaged(damaged) from exc


@dataclass(frozen=True)
class LocalImage:
    path: Path
    data: bytes
    mime_type: str

    @classmethod
    def read(cls, path: Path) -> LocalImage:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ImageReadError(f"{path}: cannot be read ({exc.strerror})") from exc
        mime = sniff_image_type(data)
        if mime is None:
            raise ImageReadError(f"{path}: not a PNG, JPEG or WebP image")
        return cls(path, data, mime)

    @classmethod
    def checked(cls, path: Path) -> LocalImage:
        """The image read and decoded whole (decode_whole): for the checks before a spend."""
        image = cls.read(path)
        decode_whole(image.data, image.mime_type, str(path))
        return image

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def inline(self) -> Base64ImageInput:
        return Base64ImageInput.model_validate(
            {
                "type": "base64",
                "media_type": self.mime_type,
                "data": base64.b64encode(self.data).decode(),
            }
        )

    async def upload(self, client: Client) -> FileImageInput:
        """Never replayed after a transport failure (UncertainRequestError)."""
        uploaded = await client.upload_file(self.data, self.path.name, self.mime_type)
        return FileImageInput(file_id=uploaded.id)
