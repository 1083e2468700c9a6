"""A job as its user sees it, read once from the books for the daemon and the CLI."""

from __future__ import annotations

from pathlib import Path

from companion.jobs import JobView, OutputView, has_preview_source, job_view
from companion.jobs.view import Charge
from companion.store import Store


def test_the_view_holds_what_the_books_say(tmp_path: Path) -> None:
    store = Store(tmp_path / "books.db")
    try:
        job = store.add_job("animation", "hero_walk", {}, priority=2, target_dir="/p/anims")
        store.add_assets(
            job.id, [("a1", "spritesheet", "hero_walk.png", 10), ("a2", "gif", "w.gif", 3)]
        )
        store.asset_installed("a1", "/p/anims/hero_walk.png")
        store.record(job.id, "hold", 12)
        job = store.update_job(job.id, state="done", quote=12, resolved={"loop": {"start": 0.0}})
        view = job_view(store, job)
        assert isinstance(view, JobView)
        assert (view.id, view.state, view.name, view.priority) == (job.id, "done", "hero_walk", 2)
        assert (view.quote, view.target_dir, view.error) == (12, "/p/anims", None)
        assert view.outputs == (
            OutputView("a1", "spritesheet", "hero_walk.png", 10, "/p/anims/hero_walk.png"),
            OutputView("a2", "gif", "w.gif", 3, None),
        )
        assert view.loop == {"start": 0.0}
        assert view.ledger == ()  # read only when asked
        [charge] = job_view(store, job, ledger=True).ledger
        assert isinstance(charge, Charge)
        assert (charge.entry, charge.credits) == ("hold", 12)
        # The GIF is not installed and a sheet alone has no frame rects: no preview.
        assert view.preview is False
        store.asset_installed("a2", "/p/anims/w.gif")
        assert job_view(store, job).preview is True
        assert job_view(store, store.update_job(job.id, state="failed")).preview is False
    finally:
        store.close()


def test_what_a_preview_is_made_from() -> None:
    assert has_preview_source({"gif"})
    assert has_preview_source({"frames_zip", "clip_video"})
    assert has_preview_source({"spritesheet", "spritesheet_json"})
    assert not has_preview_source({"spritesheet"})
    assert not has_preview_source({"clip_video", "unity_pack"})
