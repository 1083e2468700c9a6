"""Every output of a fixed set of exports is what the reference pipeline wrote: the
same bytes for lossless formats, the same frames and times within tolerance for VP9."""

from __future__ import annotations

from pathlib import Path

from tests.export_golden import differences, digests


def test_exports_match_the_recorded_outputs(tmp_path: Path) -> None:
    assert differences(digests(tmp_path)) == []
