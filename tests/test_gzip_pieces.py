"""gzip deflated in pieces on several threads: standard gzip reads it back whole, and the
same input always makes the same bytes."""

from __future__ import annotations

import gzip
import os
import subprocess
from pathlib import Path

import pytest

from companion.media.formats import gzip_pieces
from companion.media.formats.gzip_pieces import gzip_bytes


@pytest.mark.parametrize("size", [0, 1, 40_000, 3 * (1 << 20) + 17])
def test_reads_back_and_repeats(size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 4)  # several pieces even on one core
    data = os.urandom(size // 3) + bytes(size // 3) + b"sprite " * ((size - 2 * (size // 3)) // 7)
    packed = gzip_bytes(data, 1577836800)
    assert gzip.decompress(packed) == data
    assert packed == gzip_bytes(data, 1577836800)


def test_pieces_compress_like_one_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    # Repetitive data across piece boundaries: each piece's dictionary keeps the ratio.
    data = b"".join(f"frame {i % 500:04d} of the walk cycle\n".encode() for i in range(200_000))
    pieces = gzip_bytes(data, 0)
    whole = gzip.compress(data, 9, mtime=0)
    assert len(pieces) <= len(whole) * 1.01
    assert len(data) > 3 * gzip_pieces.PIECE  # so there were four pieces
    # And the system's gzip agrees that it is sound.
    (tmp_path / "x.gz").write_bytes(pieces)
    subprocess.run(["gzip", "-t", str(tmp_path / "x.gz")], check=True)
