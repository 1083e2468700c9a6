"""A local input image, read once: its bytes, its real media type, and the two ways it
can travel to the service (inline as Base64, or uploaded for a reusable file_id).

Callers decide which way; this module only does the reading and encoding they share."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path

from companion.api.client import Client
from companion.api.schema import Base64ImageInput, FileImageInput
from companion.api.schema.images import sniff_image_type
from companion.jobs.errors import JobsError


class ImageReadError(JobsError):
    """The file cannot be sent as an image; the message says why."""


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
