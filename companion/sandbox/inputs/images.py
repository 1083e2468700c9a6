"""Image intake: the spec's size limits, media types and a real decode.

The maximum decoded size, "not shown" in the spec, is the face's choice
(Face.max_image_side): by default 4096 pixels a side and 16.8 megapixels in all, on the
latitude face 8192 (422 IMAGE_DIMENSIONS_TOO_LARGE beyond)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import warnings
from dataclasses import dataclass

from companion.api.schema import ErrorCode
from companion.api.schema.images import sniff_image_type
from companion.sandbox.errors import ApiError

MAX_UPLOAD_BYTES = 20_000_000
MAX_INLINE_BYTES = 10 * 2**20
MAX_INLINE_TOTAL = 20 * 2**20
MAX_SIDE = 4096  # the default face's (Face.max_image_side)


@dataclass(frozen=True)
class CheckedImage:
    data: bytes
    mime_type: str
    width: int
    height: int
    sha256: str  # hashed once here: the create's normalised input and its file both use it


def check_image(
    data: bytes, param: str, declared: str | None = None, max_side: int = MAX_SIDE
) -> CheckedImage:
    from PIL import Image  # at the first image, not when the sandbox starts

    max_pixels = max_side * max_side
    mime = sniff_image_type(data)
    if mime is None:
        raise ApiError(
            ErrorCode.UNSUPPORTED_MEDIA_TYPE, "the image must be PNG, JPEG or WebP", param=param
        )
    if declared is not None and declared != mime:
        raise ApiError(
            ErrorCode.INVALID_IMAGE,
            f"media_type says {declared} but the bytes are {mime}",
            param=param,
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                if width > max_side or height > max_side or width * height > max_pixels:
                    raise ApiError(
                        ErrorCode.IMAGE_DIMENSIONS_TOO_LARGE,
                        f"the image is {width}x{height}; at most {max_side} pixels a side "
                        f"and {max_pixels} pixels in all",
                        param=param,
                        details={"max_side": max_side, "max_pixels": max_pixels},
                    )
                image.load()  # a real decode: truncated or corrupt data fails here
    except ApiError:
        raise
    except (
        OSError,
        SyntaxError,
        ValueError,
        Image.DecompressionBombError,
        Image.DecompressionBombWarning,
    ) as exc:
        raise ApiError(ErrorCode.INVALID_IMAGE, "the image cannot be decoded", param=param) from exc
    return CheckedImage(data, mime, width, height, hashlib.sha256(data).hexdigest())


def decode_base64(text: str, param: str) -> bytes:
    if text.startswith("data:") or "," in text[:64]:
        raise ApiError(
            ErrorCode.INVALID_BASE64, "send pure Base64 without a data-URL prefix", param=param
        )
    if len(text) > (MAX_INLINE_BYTES * 4) // 3 + 8:
        raise ApiError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            f"an inline image may decode to at most {MAX_INLINE_BYTES} bytes",
            param=param,
        )
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ApiError(
            ErrorCode.INVALID_BASE64, "the data is not valid Base64", param=param
        ) from exc
    if len(data) > MAX_INLINE_BYTES:
        raise ApiError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            f"an inline image may decode to at most {MAX_INLINE_BYTES} bytes",
            param=param,
        )
    return data
