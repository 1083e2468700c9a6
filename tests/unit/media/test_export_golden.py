"""Every output of a fixed set of exports is what the reference pipeline wrote: the
same pixels, frame times and file contents for lossless formats (not the same deflate
stream, which the PNG writers are free to choose), each PNG at most 1.05 times the size
the reference wrote, and the same frames and times within tolerance for the lossy video
codecs."""

from __future__ import annotations

from pathlib import Path

from tests.support.export_golden import check


def test_exports_match_the_recorded_outputs(tmp_path: Path) -> None:
    assert check(tmp_path) == []
