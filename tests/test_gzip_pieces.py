"""gzip deflated in pieces on several threads: standard gzip reads it back whole, and the
same input makes the same bytes on any machine."""

from __future__ import annotations

import gzip
import os
import subprocess
from pathlib import Path

import pytest

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
