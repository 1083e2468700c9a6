"""The sandbox's answers about the generated video (companion.sandbox.face): whether a
one-click returns it unasked, and under which format name a generation returns it."""

from __future__ import annotations

from tests.conftest import both_faces
from tests.support.calls import Api
from tests.support.sandbox import animation_body, generate_video, made_outputs, wait_task


@both_faces
def test_one_click_returns_the_unasked_video_only_on_the_default_face(
    make_sandbox, face: str
) -> None:
    api = Api(make_sandbox(credits=100).base_url)
    body = animation_body(formats=["spritesheet", "spritesheet_json"])
    task = wait_task(api, "animation", api.create("/animations", body).json["id"])
    assert task["status"] == "succeeded"
    formats = sorted(o["format"] for o in made_outputs(task))
    unasked = ["clip_video"] if face == "default" else []
    assert formats == sorted([*unasked, "spritesheet", "spritesheet_json"])


@both_faces
def test_an_asked_clip_is_the_export_of_the_selection(make_sandbox, face: str) -> None:
    api = Api(make_sandbox(credits=100).base_url)
    body = animation_body(formats=["clip_video"], output_width=96, output_height=96)
    body["selection"] = {"mode": "range", "start_seconds": 0.5, "duration_seconds": 0.25}
    task = wait_task(api, "animation", api.create("/animations", body).json["id"])
    [clip] = made_outputs(task)
    assert clip["format"] == "clip_video"
    media = clip["media"]
    assert (media["width"], media["height"]) == (96, 96)
    assert media["duration_seconds"] < 0.5  # the selection, not the whole second made


@both_faces
def test_a_generation_names_its_video_by_the_face_and_exports_from_it(
    make_sandbox, face: str
) -> None:
    api = Api(make_sandbox(credits=100).base_url)
    [video] = made_outputs(generate_video(api))
    assert video["format"] == ("clip_video" if face == "default" else "source_video")
    assert video["mime_type"] == "video/mp4" and video["media"]["width"] == 360
    body = {
        "source_video_asset_id": video["id"],
        "export": {"frame_count": 4, "output_formats": ["gif"]},
    }
    created = api.create("/animation-exports", body)
    assert created.status == 202, created.body
    task = wait_task(api, "animation_export", created.json["id"])
    assert task["status"] == "succeeded"
    assert [o["format"] for o in made_outputs(task)] == ["gif"]
