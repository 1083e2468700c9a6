from __future__ import annotations

from pathlib import Path

import pytest

from tests.media_helpers import write_index_video


@pytest.fixture(scope="session")
def index_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 s, 24 fps, 48 frames, 320x240, green background, frame index in a square."""
    return write_index_video(tmp_path_factory.mktemp("media") / "index.mp4")
