"""gzip deflated in pieces on several threads: standard gzip reads it back whole, and the
same input makes the same bytes on any machine. And the other way: a download's gzip or
deflate answer decoded as it streams, in bounded pieces."""

from __future__ import annotations

import gzip
import os
import subprocess
import zlib
from pathlib import Path

import pytest

from companion.api.content_encoding import Decoder
from companion.api.errors import ContentEncodingError
from companion.media.formats import gzip_pieces
from companion.media.formats.gzip_pieces import gzip_bytes


@pytest.mark.parametrize("size", [0, 1, 40_000, 3 * (1 << 20) + 17])
def test_reads_back_and_repeats_whatever_the_cores(
    size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = os.urandom(size // 3) + bytes(size // 3) + b"sprite " * ((size - 2 * (size // 3)) // 7)
    packed = gzip_bytes(data, 1577836800)
    assert gzip.decompress(packed) == data
    for cores in (1, 3, 16):  # the pieces follow the size, not the machine
        monkeypatch.setattr(os, "cpu_count", lambda cores=cores: cores)
        assert gzip_bytes(data, 1577836800) == packed


def test_pieces_compress_like_one_stream(tmp_path: Path) -> None:
    # Repetitive data across piece boundaries: each piece's dictionary keeps the ratio.
    data = b"".join(f"frame {i % 500:04d} of the walk cycle\n".encode() for i in range(200_000))
    assert len(data) > 3 * gzip_pieces.PIECE  # so there are several pieces
    pieces = gzip_bytes(data, 0)
    whole = gzip.compress(data, 9, mtime=0)
    assert len(pieces) <= len(whole) * 1.01
    # And the system's gzip agrees that it is sound.
    (tmp_path / "x.gz").write_bytes(pieces)
    subprocess.run(["gzip", "-t", str(tmp_path / "x.gz")], check=True)


@pytest.mark.parametrize("step", [1, 7, 4096, 1 << 20])
def test_a_download_decodes_any_encoding_in_any_pieces(step: int) -> None:
    # What a server may send for a download asked as identity (spec 4.7: not shown):
    # gzip (ours in pieces, or several members), zlib-wrapped or raw deflate.
    data = os.urandom(50_000) + b"walk cycle " * 200_000
    raw = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    encoded = {
        "gzip": gzip_bytes(data, 0),
        "x-gzip": gzip.compress(data[:1000]) + gzip.compress(data[1000:]),
        "deflate": zlib.compress(data),
        "identity": data,
    }
    encoded["raw deflate"] = raw.compress(data) + raw.flush()
    for name, body in encoded.items():
        decoder = Decoder("deflate" if name == "raw deflate" else name, piece=1 << 16)
        out = bytearray()
        for i in range(0, len(body), step):
            for piece in decoder.feed(body[i : i + step]):
                # Memory stays bounded however it inflates (identity: as it came).
                assert len(piece) <= (step if name == "identity" else 1 << 16)
                out += piece
        decoder.finish()
        assert bytes(out) == data, name


def test_a_cut_or_damaged_encoding_is_refused() -> None:
    body = gzip.compress(b"sprite " * 10_000)
    cut = Decoder("gzip")
    list(cut.feed(body[: len(body) // 2]))
    with pytest.raises(ContentEncodingError):
        cut.finish()
    with pytest.raises(ContentEncodingError):
        list(Decoder("gzip").feed(b"\x1f\x8b\x08\x00" + bytes(40)))
    with pytest.raises(ContentEncodingError):
        Decoder("br")
