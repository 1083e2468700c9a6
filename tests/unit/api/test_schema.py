from __future__ import annotations

import json
import uuid

import pytest
from pydantic import TypeAdapter, ValidationError

from companion.api.openapi import render_openapi
from companion.api.operations import OPERATIONS
from companion.api.schema import (
    AnimationCreate,
    AnimationExportCreate,
    Base64ImageInput,
    ErrorEnvelope,
    ExportFormat,
    ExportOptions,
    FileImageInput,
    GenerationInput,
    ImageInput,
    PreviewRequest,
    Selection,
    Task,
    UrlImageInput,
    VideoGenerationCreate,
    VideoGenerationQuote,
)
from companion.media import FORMATS
from tests.support.paths import REPO

ROOT = REPO


def test_frame_count_defaults_to_24_with_spritesheet() -> None:
    options = ExportOptions()
    assert options.frame_count == 24 and options.fps is None
    assert options.output_formats == [ExportFormat.SPRITESHEET]


def test_fps_mode_defaults_to_sheet_and_json() -> None:
    options = ExportOptions(fps=12)
    assert options.frame_count is None
    assert options.output_formats == [ExportFormat.SPRITESHEET, ExportFormat.SPRITESHEET_JSON]


def test_fps_and_frame_count_are_exclusive() -> None:
    with pytest.raises(ValidationError, match="mutually exclusive"):
        ExportOptions(fps=12, frame_count=10)


@pytest.mark.parametrize("formats", [["gif"], ["spritesheet"], ["spritesheet_json", "gif"]])
def test_fps_mode_needs_sheet_and_json(formats: list[str]) -> None:
    with pytest.raises(ValidationError):
        ExportOptions.model_validate({"fps": 12, "output_formats": formats})


@pytest.mark.parametrize("metadata", ["spritesheet_json", "unity_meta"])
def test_metadata_formats_need_their_texture(metadata: str) -> None:
    with pytest.raises(ValidationError, match="needs spritesheet"):
        ExportOptions.model_validate({"output_formats": [metadata, "gif"]})
    ExportOptions.model_validate({"output_formats": [metadata, "spritesheet"]})


def test_duplicates_removed_in_order() -> None:
    options = ExportOptions.model_validate({"output_formats": ["gif", "spritesheet", "gif"]})
    assert options.output_formats == [ExportFormat.GIF, ExportFormat.SPRITESHEET]


@pytest.mark.parametrize(
    "field,value",
    [
        ("output_width", 63),
        ("output_width", 1025),
        ("output_height", 10),
        ("fps", 0),
        ("fps", 61),
        ("frame_count", 0),
        ("frame_count", 241),
        ("output_formats", []),
    ],
)
def test_bounds(field: str, value: object) -> None:
    with pytest.raises(ValidationError):
        ExportOptions.model_validate({field: value})


def test_legacy_transparent_boolean_is_normalised() -> None:
    assert ExportOptions.model_validate({"transparent": True}).model_dump()["transparent"] == {
        "enabled": True
    }
    assert (
        ExportOptions.model_validate({"transparent": {"enabled": False}}).transparent.enabled
        is False
    )


def test_unity_defaults_and_unknown_fields_rejected() -> None:
    dumped = ExportOptions().model_dump(mode="json")
    assert dumped["unity"] == {"pivot": "bottom_center", "pixels_per_unit": 100}
    with pytest.raises(ValidationError):
        ExportOptions.model_validate({"unity": {"pivot": "bottom_center", "scale": 2}})
    with pytest.raises(ValidationError):
        ExportOptions.model_validate({"frames": 12})


def test_image_inputs_are_a_discriminated_union() -> None:
    adapter: TypeAdapter[object] = TypeAdapter(ImageInput)
    file_id = str(uuid.uuid4())
    assert isinstance(adapter.validate_python({"type": "file", "file_id": file_id}), FileImageInput)
    assert isinstance(
        adapter.validate_python({"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}),
        Base64ImageInput,
    )
    assert isinstance(
        adapter.validate_python({"type": "url", "url": "https://example.com/a.png"}), UrlImageInput
    )
    with pytest.raises(ValidationError):
        adapter.validate_python({"type": "file", "file_id": file_id, "extra": 1})
    with pytest.raises(ValidationError):
        adapter.validate_python({"type": "base64", "media_type": "image/gif", "data": "abcd"})
    with pytest.raises(ValidationError):
        adapter.validate_python({"type": "base64", "media_type": "image/png", "data": "ab"})


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/a.png",
        "https://example.com:8443/a.png",
        "https://u:p@example.com/a.png",
        "https://example.com/a.png#x",
        "https://127.0.0.1/a.png",
        "https://10.1.2.3/a.png",
        "https://169.254.169.254/a.png",
        "https://[::1]/a.png",
        "https://localhost/a.png",
        "https://192.168.0.4/a.png",
    ],
)
def test_url_rules(url: str) -> None:
    with pytest.raises(ValidationError):
        UrlImageInput(url=url)


def test_reference_images_at_most_eight() -> None:
    ref = {"type": "file", "file_id": str(uuid.uuid4())}
    GenerationInput.model_validate({"first_frame": ref, "reference_images": [ref] * 8})
    with pytest.raises(ValidationError):
        GenerationInput.model_validate({"first_frame": ref, "reference_images": [ref] * 9})


def _generation(**extra: object) -> dict[str, object]:
    return {"input": {"first_frame": {"type": "file", "file_id": str(uuid.uuid4())}}, **extra}


def test_create_bodies_limits() -> None:
    VideoGenerationCreate.model_validate(_generation(prompt="x" * 8000))
    with pytest.raises(ValidationError):
        VideoGenerationCreate.model_validate(_generation(prompt="x" * 8001))
    with pytest.raises(ValidationError):
        VideoGenerationCreate.model_validate(_generation(negative_prompt="x" * 4001))
    with pytest.raises(ValidationError, match="metadata"):
        VideoGenerationCreate.model_validate(_generation(metadata={"k": "v" * 4100}))
    with pytest.raises(ValidationError):
        VideoGenerationCreate.model_validate(_generation(metadata={"nested": {"a": 1}}))
    with pytest.raises(ValidationError):
        VideoGenerationCreate.model_validate(_generation(max_credits=5))


def test_animation_body_has_export_and_selection_but_no_fps() -> None:
    body = AnimationCreate.model_validate(_generation())
    assert body.export.frame_count == 24 and body.selection.mode == "full"
    with pytest.raises(ValidationError, match=r"export\.fps"):
        AnimationCreate.model_validate(_generation(export={"fps": 12}))


def test_export_body_and_selection() -> None:
    body = AnimationExportCreate.model_validate(
        {
            "source_video_asset_id": str(uuid.uuid4()),
            "selection": {"mode": "range", "start_seconds": 1, "duration_seconds": 2},
        }
    )
    assert body.selection.duration_seconds == 2
    with pytest.raises(ValidationError):
        Selection(mode="full", start_seconds=1)
    with pytest.raises(ValidationError):
        AnimationExportCreate.model_validate({"source_video_asset_id": "not-a-uuid"})


def test_quote_and_preview_bodies() -> None:
    assert VideoGenerationQuote().reference_image_count == 0
    with pytest.raises(ValidationError):
        VideoGenerationQuote(reference_image_count=9)
    assert PreviewRequest(timestamps_seconds=[0.5]).max_frame_size == 256
    for bad in (
        {"timestamps_seconds": []},
        {"timestamps_seconds": [0.1] * 13},
        {"timestamps_seconds": [-1]},
        {"timestamps_seconds": [1], "max_frame_size": 31},
    ):
        with pytest.raises(ValidationError):
            PreviewRequest.model_validate(bad)


def test_responses_keep_unknown_fields_and_hide_urls() -> None:
    now = "2026-11-21T10:00:00Z"
    task = Task.model_validate(
        {
            "id": str(uuid.uuid4()),
            "object": "animation",
            "status": "succeeded",
            "stage": "completed",
            "progress": 1,
            "created_at": now,
            "credits": {"quoted": 5, "held": 0, "charged": 5},
            "outputs": [
                {
                    "id": str(uuid.uuid4()),
                    "format": "gif",
                    "mime_type": "image/gif",
                    "byte_size": 3,
                    "created_at": now,
                    "download_url": "https://s/secret-sig",
                    "download_expires_at": now,
                    "new_member": 1,
                }
            ],
            "future_field": {"x": 1},
        }
    )
    assert task.is_terminal and task.model_extra == {"future_field": {"x": 1}}
    assert task.credits.refunded == 0 and task.credits.released == 0
    assert "secret-sig" not in repr(task)
    assert task.outputs_of("gif")[0].model_extra == {"new_member": 1}
    future = Task.model_validate({**task.model_dump(mode="json"), "status": "paused"})
    assert future.status == "paused" and not future.is_terminal


def test_error_envelope() -> None:
    envelope = ErrorEnvelope.model_validate(
        {
            "error": {
                "code": "IDEMPOTENCY_IN_PROGRESS",
                "message": "m",
                "details": {},
                "request_id": "r",
                "retryable": True,
            }
        }
    )
    assert envelope.error.retryable and envelope.error.param is None


def test_schema_formats_match_the_media_engine() -> None:
    assert [f.value for f in ExportFormat] == list(FORMATS)


def test_openapi_covers_every_operation() -> None:
    document = json.loads(render_openapi())
    assert document["openapi"] == "3.1.0"
    operations = {op["operationId"] for path in document["paths"].values() for op in path.values()}
    assert operations == {op.name for op in OPERATIONS} and len(operations) == 22
    create = document["paths"]["/animations"]["post"]
    assert any(p["name"] == "Idempotency-Key" and p["required"] for p in create["parameters"])
    assert "Retry-After" in create["responses"]["202"]["headers"]
    assert "Retry-After" in create["responses"]["429"]["headers"]


def test_openapi_copy_in_docs_is_current() -> None:
    copy = ROOT / "docs" / "openapi.json"
    assert copy.read_text() == render_openapi(), "run: companion openapi --out docs/openapi.json"
