"""The export's decoder runs with frame threads only when asked: with the writers busy
on both cores, it decodes on the calling thread (see fanout.decode_into)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from companion.media.source.decode import iter_source_frames
from tests.support.media import write_index_video

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for thread names")


def _decoder_threads() -> set[tuple[str, str]]:
    """(thread id, name) of the FFmpeg threads of this process."""
    found = set()
    for task in os.listdir("/proc/self/task"):
        try:
            name = Path(f"/proc/self/task/{task}/comm").read_text().strip()
        except OSError:
            continue  # a thread that ended meanwhile
        if name.startswith("av:"):
            found.add((task, name))
    return found


@pytest.mark.parametrize("threads", [False, True])
def test_decoder_threads_follow_the_request(tmp_path: Path, threads: bool) -> None:
    source = write_index_video(tmp_path / "index.mp4")
    before = _decoder_threads()  # another test's, still running: not this decoder's
    seen: set[tuple[str, str]] = set()
    for count, _frame in enumerate(iter_source_frames(source, 0.0, 1.0, threads=threads)):
        seen |= _decoder_threads() - before
        if count >= 5:
            break
    if threads:
        assert seen, "frame threads were asked for and none ran"
    else:
        assert not seen, f"decoder threads ran on their own: {sorted(seen)}"
