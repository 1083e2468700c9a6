from __future__ import annotations

import pytest

from companion.media import MediaError, plan_samples
from companion.media.formats.common import rounded_steps
from companion.media.formats.sheet import MAX_SHEET_SIDE, plan_pages
from companion.media.source.decode import SamplePicker, SourceFrame


def test_frame_count_is_uniform_over_the_selection() -> None:
    plan = plan_samples(4.0, start=1.0, duration=2.0, frame_count=8)
    assert plan.times == pytest.approx([1.0 + i * 0.25 for i in range(8)])
    assert plan.durations == pytest.approx([0.25] * 8)
    assert plan.fps == pytest.approx(4.0)


def test_fps_mode_keeps_the_selection_duration_with_a_short_last_frame() -> None:
    plan = plan_samples(10.0, start=0.5, duration=1.05, fps=10)
    assert plan.count == 11
    assert plan.times == pytest.approx([0.5 + i / 10 for i in range(11)])
    assert plan.durations[:-1] == pytest.approx([0.1] * 10)
    assert plan.durations[-1] == pytest.approx(0.05)
    assert sum(plan.durations) == pytest.approx(1.05)


def test_fps_mode_exact_fit_has_no_short_frame() -> None:
    plan = plan_samples(2.0, fps=12)
    assert plan.count == 24 and plan.durations[-1] == pytest.approx(1 / 12)


def test_selection_is_clamped_to_the_video() -> None:
    plan = plan_samples(2.0, start=1.5, duration=5.0, frame_count=5)
    assert plan.end == 2.0 and plan.duration == pytest.approx(0.5)
    with pytest.raises(MediaError, match="starts at"):
        plan_samples(2.0, start=2.0, frame_count=5)


def test_picker_takes_the_frame_on_screen_at_each_instant() -> None:
    frames = [SourceFrame(i / 4, None, i) for i in range(8)]  # type: ignore[arg-type]
    picker = SamplePicker([0.0, 0.3, 0.5, 0.99, 5.0])
    matched = [m for f in frames for m in picker.push(f)] + picker.finish()
    assert [(i, f.serial) for i, f in matched] == [(0, 0), (1, 1), (2, 2), (3, 3), (4, 7)]


def test_rounded_steps_never_drift() -> None:
    steps = rounded_steps([1 / 24] * 24, 0.01)
    assert sum(steps) == 100 and set(steps) <= {4, 5}
    assert rounded_steps([0.001] * 10, 0.01, minimum=2) == [2] * 10


@pytest.mark.parametrize("count,side", [(24, 512), (240, 1024), (100, 1024), (240, 64), (1, 1024)])
def test_pages_cover_every_frame_within_the_limit(count: int, side: int) -> None:
    pages = plan_pages(count, side, side)
    assert sum(p.count for p in pages) == count
    for page in pages:
        assert page.columns * side <= MAX_SHEET_SIDE and page.rows * side <= MAX_SHEET_SIDE
        assert page.columns * page.rows >= page.count
    assert len(pages) == -(-count // ((MAX_SHEET_SIDE // side) ** 2))
