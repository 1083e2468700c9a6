"""Image inputs taken in: an uploaded file (multipart, bounded), and a create's or a
quote's images by file id, inline Base64 (bounded in total) or URL, each checked, and
persisted before the create is accepted."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import aiohttp
from aiohttp import web

from companion.api.schema import Base64ImageInput, ErrorCode, FileImageInput, GenerationInput
from companion.sandbox.app import SandboxService
from companion.sandbox.errors import ApiError, not_found
from companion.sandbox.inputs.images import (
    MAX_INLINE_TOTAL,
    MAX_UPLOAD_BYTES,
    CheckedImage,
    check_image,
    decode_base64,
)
from companion.sandbox.inputs.url_fetch import fetch_image
from companion.sandbox.state import Account, FileRecord, iso, now


@dataclass
class Intake:
    """What a create keeps of its image inputs: file ids, and their normalised form."""

    files: dict[str, Any]
    normalized: dict[str, Any]


async def multipart_file(request: web.Request) -> bytes | None:
    """The bytes of the multipart field 'file' (None without one), at most an upload's
    size."""
    data: bytes | None = None
    reader = await request.multipart()
    while (part := await reader.next()) is not None:
        if isinstance(part, aiohttp.BodyPartReader) and part.name == "file":
            chunks, size = [], 0
            while chunk := await part.read_chunk(1 << 16):
                size += len(chunk)
                if size > MAX_UPLOAD_BYTES:
                    raise ApiError(
                        ErrorCode.PAYLOAD_TOO_LARGE,
                        f"uploads are at most {MAX_UPLOAD_BYTES} bytes",
                        param="file",
                    )
                chunks.append(chunk)
            data = b"".join(chunks)
    return data


class Images:
    def __init__(self, service: SandboxService) -> None:
        self.s = service
        self.state = service.state

    def store(self, account: Account, image: CheckedImage, *, uploaded: bool) -> FileRecord:
        suffix = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp"}[image.mime_type]
        path = self.s.storage.new_path(suffix)
        path.write_bytes(image.data)
        record = FileRecord(
            id=str(uuid.uuid4()),
            account_id=account.id,
            mime_type=image.mime_type,
            width=image.width,
            height=image.height,
            byte_size=len(image.data),
            sha256=image.sha256,
            created_at=iso(now()) or "",
            path=str(path),
            uploaded=uploaded,
        )
        self.state.files[record.id] = record
        return record

    def _forgotten(self, record: FileRecord) -> bool:
        """Latitude: a file id is 404 this long after its upload (8: retention not shown)."""
        seconds = self.s.face.file_retention_seconds
        if seconds is None:
            return False
        age = now() - datetime.fromisoformat(record.created_at.replace("Z", "+00:00"))
        return age.total_seconds() > seconds

    async def take(self, account: Account, given: GenerationInput, *, persist: bool) -> Intake:
        slots: list[tuple[str, str, Any]] = [
            ("first_frame", "input.first_frame", given.first_frame)
        ]
        if given.last_frame is not None:
            slots.append(("last_frame", "input.last_frame", given.last_frame))
        slots += [
            (f"reference_{i}", f"input.reference_images.{i}", image)
            for i, image in enumerate(given.reference_images)
        ]
        files: dict[str, Any] = {}
        normalized: dict[str, Any] = {}
        inline_total = 0
        for slot, param, image in slots:
            if isinstance(image, FileImageInput):
                record = self.state.files.get(str(image.file_id))
                if (
                    record is None
                    or record.account_id != account.id
                    or not record.uploaded
                    or self._forgotten(record)
                ):
                    error = not_found("file")
                    error.param = f"{param}.file_id"
                    raise error
                files[slot] = record.id
                normalized[slot] = {"type": "file", "file_id": record.id}
                continue
            if isinstance(image, Base64ImageInput):
                data = decode_base64(image.data, f"{param}.data")
                inline_total += len(data)
                if inline_total > MAX_INLINE_TOTAL:
                    raise ApiError(
                        ErrorCode.PAYLOAD_TOO_LARGE,
                        f"inline images may decode to at most {MAX_INLINE_TOTAL} "
                        "bytes in one request",
                        param=f"{param}.data",
                    )
                checked = check_image(
                    data, f"{param}.data", image.media_type, self.s.face.max_image_side
                )
                form = {"type": "base64", "media_type": image.media_type}
            else:
                checked = await fetch_image(image.url, f"{param}.url", self.s.face.max_image_side)
                form = {"type": "url", "url": image.url}
            form["sha256"] = checked.sha256
            normalized[slot] = form
            if persist:  # base64 and URL bytes are persisted before the create is accepted
                files[slot] = self.store(account, checked, uploaded=False).id
        return Intake(files, normalized)
