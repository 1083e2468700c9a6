"""The three image-input forms (spec 2.6) and GenerationInput (spec 2.7)."""

from __future__ import annotations

import ipaddress
from typing import Annotated, Literal
from urllib.parse import urlsplit
from uuid import UUID

from pydantic import Field, field_validator

from companion.api.schema.base import RequestModel

ImageMediaType = Literal["image/png", "image/jpeg", "image/webp"]
IMAGE_MEDIA_TYPES: tuple[str, ...] = ("image/png", "image/jpeg", "image/webp")
MAX_REFERENCE_IMAGES = 8


class FileImageInput(RequestModel):
    type: Literal["file"] = "file"
    file_id: UUID


class Base64ImageInput(RequestModel):
    type: Literal["base64"] = "base64"
    media_type: ImageMediaType
    data: str = Field(min_length=4, repr=False)


class UrlImageInput(RequestModel):
    type: Literal["url"] = "url"
    url: str = Field(repr=False)

    @field_validator("url")
    @classmethod
    def _public_https(cls, value: str) -> str:
        check_image_url_shape(value)
        return value


ImageInput = Annotated[
    FileImageInput | Base64ImageInput | UrlImageInput, Field(discriminator="type")
]


class GenerationInput(RequestModel):
    first_frame: ImageInput
    last_frame: ImageInput | None = None
    reference_images: list[ImageInput] = Field(
        default_factory=list, max_length=MAX_REFERENCE_IMAGES
    )


def check_image_url_shape(url: str) -> None:
    """Reject what spec 2.6 forbids by shape alone: not https, another port,
    credentials, a fragment, or a literal private/loopback/link-local address.
    Names that resolve to such addresses are checked where the URL is fetched."""
    parts = urlsplit(url)
    if parts.scheme != "https":
        raise ValueError("image URL must use https")
    if not parts.hostname:
        raise ValueError("image URL has no host")
    try:
        port = parts.port
    except ValueError as exc:
        raise ValueError("image URL has an invalid port") from exc
    if port not in (None, 443):
        raise ValueError("image URL must use port 443")
    if parts.username is not None or parts.password is not None:
        raise ValueError("image URL must not embed credentials")
    if parts.fragment or url.endswith("#"):
        raise ValueError("image URL must not have a fragment")
    if is_blocked_host(parts.hostname):
        raise ValueError("image URL points at a private, loopback or link-local address")


def is_blocked_host(host: str) -> bool:
    """True for literal addresses and names the service must never fetch."""
    name = host.strip("[]").lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return is_blocked_address(address)


def is_blocked_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )


_SIGNATURES = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"))


def sniff_image_type(data: bytes) -> str | None:
    """The accepted media type the bytes really are (by signature), or None."""
    for signature, mime in _SIGNATURES:
        if data.startswith(signature):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None
