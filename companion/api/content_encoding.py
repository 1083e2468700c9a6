"""Undoing a response's Content-Encoding as its bytes stream in.

Downloads ask for `identity`, yet a signed download's response is not shown (spec 4.7):
a server may answer gzip or deflate anyway, and then the decoded bytes are the asset.
Decoding is incremental and bounded: no piece handed out is larger than `piece`, however
much a small input inflates, so memory stays flat and a caller counting bytes against
byte_size stops an inflating stream early."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from companion.api.errors import ContentEncodingError

GZIP = 16 + zlib.MAX_WBITS
ZLIB = zlib.MAX_WBITS
RAW = -zlib.MAX_WBITS
PIECE = 1 << 20


def is_identity(encoding: str | None) -> bool:
    return (encoding or "").strip().lower() in ("", "identity")


class Decoder:
    """Decodes one response body: `feed` each chunk, then `finish` (which says whether the
    encoded stream ended whole)."""

    def __init__(self, encoding: str | None, piece: int = PIECE) -> None:
        name = (encoding or "").strip().lower()
        self._wbits: int | None
        if name in ("", "identity"):
            self._wbits = None
        elif name in ("gzip", "x-gzip"):
            self._wbits = GZIP
        elif name == "deflate":
            self._wbits = ZLIB  # zlib-wrapped, as HTTP says; raw deflate also seen (below)
        else:
            raise ContentEncodingError(
                f"the response is {name}-encoded, which cannot be decoded here"
            )
        self.encoding = name or "identity"
        self._piece = piece
        self._head = b""  # deflate: bytes held until its first two tell zlib from raw
        self._inflate: zlib._Decompress | None = None

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._wbits is None:
            if data:
                yield data
            return
        if self._inflate is None:
            if self._wbits == ZLIB:
                self._head += data
                if len(self._head) < 2:
                    return
                data, self._head = self._head, b""
                if not _zlib_header(data):
                    self._wbits = RAW
            self._inflate = zlib.decompressobj(self._wbits)
        yield from self._run(data)

    def _run(self, data: bytes) -> Iterator[bytes]:
        assert self._inflate is not None
        while True:
            try:
                out = self._inflate.decompress(data, self._piece)
            except zlib.error as exc:
                raise ContentEncodingError(f"the {self.encoding} stream is damaged: {exc}") from exc
            if out:
                yield out
            if self._inflate.eof:
                data = self._inflate.unused_data
                if not data:
                    return
                # Another gzip member follows (concatenated members are one stream).
                if self._wbits != GZIP:
                    raise ContentEncodingError(
                        f"bytes follow the end of the {self.encoding} stream"
                    )
                self._inflate = zlib.decompressobj(GZIP)
                continue
            data = self._inflate.unconsumed_tail
            if not data and len(out) < self._piece:
                return  # all taken in, and zlib had room for all it could give

    def finish(self) -> None:
        """Raise unless the encoded stream ended whole."""
        if self._wbits is None:
            return
        if self._inflate is None or not self._inflate.eof:
            raise ContentEncodingError(f"the {self.encoding} stream ended before its end")


def _zlib_header(head: bytes) -> bool:
    """RFC 1950: method 8 (deflate) and a header checksum divisible by 31."""
    return head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0
