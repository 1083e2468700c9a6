"""Keys, scopes, account states, rate limits and request validation (spec parts 5, 7, 8)."""

from __future__ import annotations

import base64
import uuid

import pytest

from companion.sandbox import Limits
from companion.sandbox.inputs.images import MAX_INLINE_BYTES, MAX_UPLOAD_BYTES
from tests.support.calls import Api, png_bytes
from tests.support.sandbox import animation_body, generation_body


def test_account_reports_key_identity_scopes_and_registered_limits(make_sandbox) -> None:
    sandbox = make_sandbox(limits=None, read_only_keys=["ro-key"])
    api = Api(sandbox.base_url)
    account = api.get("/account")
    assert account.status == 200
    body = account.json
    assert body["object"] == "account" and body["plan"]["code"] == "registered"
    assert body["limits"] == {
        "concurrency": 1,
        "queue": 3,
        "create_per_minute": 3,
        "other_per_minute": 60,
    }
    assert body["plan"]["current_period_end"] is None
    assert "sk-test" not in account.body.decode()
    assert sorted(body["api_key"]["scopes"]) == ["animations:read", "animations:write"]
    read_only = api.get("/account", key="ro-key").json
    assert read_only["api_key"]["scopes"] == ["animations:read"]
    assert read_only["id"] == body["id"] and read_only["api_key"]["id"] != body["api_key"]["id"]


@pytest.mark.parametrize("tier,queue", [("basic", 10), ("expert", 25), ("ultra", 50)])
def test_paid_tiers(make_sandbox, tier: str, queue: int) -> None:
    body = Api(make_sandbox(limits=None, tier=tier).base_url).get("/account").json
    assert body["plan"]["code"] == tier and body["limits"]["queue"] == queue
    assert body["plan"]["current_period_end"] is not None


@pytest.mark.parametrize("header", [None, "Bearer nope", "Basic c2stdGVzdA==", "Bearer"])
def test_bad_keys_get_401(make_sandbox, header: str | None) -> None:
    api = Api(make_sandbox().base_url, key=None)
    reply = api.get("/account", headers={"Authorization": header} if header else None)
    assert reply.status == 401 and reply.error["code"] == "INVALID_API_KEY"
    assert reply.error["request_id"] and reply.error["retryable"] is False


def test_read_only_key_cannot_write(make_sandbox) -> None:
    api = Api(make_sandbox(read_only_keys=["ro-key"]).base_url, key="ro-key")
    for reply in (
        api.upload(png_bytes()),
        api.post("/video-generations/quote", {}),
        api.create("/animations", animation_body()),
        api.post(f"/animations/{uuid.uuid4()}/cancel"),
    ):
        assert reply.status == 403 and reply.error["code"] == "INSUFFICIENT_SCOPE"
    assert api.get("/credits/balance").status == 200


@pytest.mark.parametrize(
    "flag,status,code",
    [
        ("paused_keys", 403, "API_ACCOUNT_PAUSED"),
        ("ineligible_keys", 403, "API_ACCOUNT_NOT_ELIGIBLE"),
        ("disabled_keys", 503, "API_DISABLED"),
    ],
)
def test_account_states(make_sandbox, flag: str, status: int, code: str) -> None:
    api = Api(make_sandbox(**{flag: ["special"]}).base_url, key="special")
    reply = api.get("/account")
    assert reply.status == status and reply.error["code"] == code
    assert reply.error["retryable"] is False


def test_other_requests_per_minute_limit(make_sandbox) -> None:
    api = Api(make_sandbox(limits=Limits(1, 3, 3, 5)).base_url)
    statuses = [api.get("/credits/balance").status for _ in range(5)]
    assert statuses == [200] * 5
    reply = api.get("/credits/balance")
    assert reply.status == 429 and reply.error["code"] == "RATE_LIMITED"
    assert reply.error["retryable"] is True and 1 <= int(reply.headers["retry-after"]) <= 60


def test_create_per_minute_limit_is_separate(make_sandbox) -> None:
    api = Api(make_sandbox(limits=Limits(4, 10, 2, 1000), task_seconds=5).base_url)
    assert [api.create("/video-generations", generation_body()).status for _ in range(2)] == [
        202,
        202,
    ]
    reply = api.create("/video-generations", generation_body())
    assert reply.status == 429 and reply.error["code"] == "RATE_LIMITED"
    assert int(reply.headers["retry-after"]) >= 1
    assert api.get("/credits/balance").status == 200


def test_queue_limit(make_sandbox) -> None:
    api = Api(make_sandbox(limits=Limits(1, 2, 100, 1000), task_seconds=10).base_url)
    accepted = [api.create("/video-generations", generation_body()) for _ in range(3)]
    assert [r.status for r in accepted] == [202, 202, 202]  # one running, two queued
    reply = api.create("/video-generations", generation_body())
    assert reply.status == 429 and reply.error["code"] == "QUEUE_LIMIT_EXCEEDED"
    assert "retry-after" in reply.headers


def test_validation_names_the_parameter(make_sandbox) -> None:
    api = Api(make_sandbox().base_url)
    cases = [
        (animation_body(output_width=2000), "export.output_width"),
        ({**animation_body(), "surprise": 1}, "surprise"),
        ({**animation_body(), "export": {"fps": 12}}, "export"),
        (generation_body(resolution="8k"), "video.resolution"),
        (generation_body(duration_seconds=7), "video.duration_seconds"),  # between 6 and 8
        ({"input": {}}, "input.first_frame"),
    ]
    for body, param in cases:
        reply = api.create("/animations", body)
        assert reply.status == 400, reply.body
        assert reply.error["code"] == "INVALID_REQUEST" and reply.error["param"] == param


def test_bad_bodies(make_sandbox) -> None:
    api = Api(make_sandbox().base_url)
    reply = api.post("/animations/quote", raw=b"{not json")
    assert reply.status == 400 and reply.error["code"] == "INVALID_REQUEST"
    reply = api.post("/animations/quote", raw=b"{}", content_type="text/plain")
    assert reply.status == 415 and reply.error["code"] == "UNSUPPORTED_MEDIA_TYPE"
    reply = api.post("/video-generations", generation_body())
    assert reply.status == 400 and reply.error["param"] == "Idempotency-Key"
    reply = api.create("/video-generations", generation_body(), idempotency_key="short")
    assert reply.status == 400 and reply.error["param"] == "Idempotency-Key"


def test_uploads(make_sandbox) -> None:
    api = Api(make_sandbox().base_url)
    image = png_bytes(80, 40)
    reply = api.upload(image)
    assert reply.status == 201
    import hashlib

    assert reply.json["sha256"] == hashlib.sha256(image).hexdigest()
    assert (reply.json["width"], reply.json["height"], reply.json["mime_type"]) == (
        80,
        40,
        "image/png",
    )
    assert api.upload(png_bytes(fmt="JPEG")).json["mime_type"] == "image/jpeg"
    assert api.upload(png_bytes(fmt="WEBP")).json["mime_type"] == "image/webp"
    gif = api.upload(png_bytes(fmt="GIF"))
    assert gif.status == 415 and gif.error["code"] == "UNSUPPORTED_MEDIA_TYPE"
    broken = api.upload(image[:60])
    assert broken.status == 400 and broken.error["code"] == "INVALID_IMAGE"
    huge = api.upload(png_bytes(4100, 8))
    assert huge.status == 422 and huge.error["code"] == "IMAGE_DIMENSIONS_TOO_LARGE"
    big = api.upload(b"\x89PNG\r\n\x1a\n" + bytes(MAX_UPLOAD_BYTES))
    assert big.status == 413 and big.error["code"] == "PAYLOAD_TOO_LARGE"
    missing = api.upload(image, field="other")
    assert missing.status == 400 and missing.error["param"] == "file"


def test_inline_and_url_inputs(make_sandbox) -> None:
    api = Api(make_sandbox().base_url)

    def first_frame(frame: dict) -> dict:
        body = animation_body()
        body["input"]["first_frame"] = frame
        return api.post("/animations/quote", body)

    data = base64.b64encode(png_bytes()).decode()
    assert first_frame({"type": "base64", "media_type": "image/png", "data": data}).status == 200
    prefixed = first_frame(
        {"type": "base64", "media_type": "image/png", "data": "data:image/png;base64," + data}
    )
    assert prefixed.status == 400 and prefixed.error["code"] == "INVALID_BASE64"
    garbage = first_frame({"type": "base64", "media_type": "image/png", "data": "@@@@not-b64"})
    assert garbage.status == 400 and garbage.error["code"] == "INVALID_BASE64"
    mismatch = first_frame({"type": "base64", "media_type": "image/jpeg", "data": data})
    assert mismatch.status == 400 and mismatch.error["code"] == "INVALID_IMAGE"
    too_big = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(MAX_INLINE_BYTES)).decode()
    large = first_frame({"type": "base64", "media_type": "image/png", "data": too_big})
    assert large.status == 413 and large.error["code"] == "PAYLOAD_TOO_LARGE"
    for url in (
        "http://example.com/a.png",
        "https://127.0.0.1/a.png",
        "https://[::1]/a.png",
        "https://169.254.169.254/latest",
        "https://user:pw@example.com/a.png",
        "https://example.com:8443/a.png",
        "https://example.com/a.png#frag",
    ):
        reply = first_frame({"type": "url", "url": url})
        assert reply.status == 400 and reply.error["param"] == "input.first_frame.url", url
    missing = first_frame({"type": "file", "file_id": str(uuid.uuid4())})
    assert missing.status == 404 and missing.error["param"] == "input.first_frame.file_id"


def test_unknown_routes_and_methods_use_the_envelope(make_sandbox) -> None:
    api = Api(make_sandbox().base_url)
    reply = api.get("/nothing-here")
    assert reply.status == 404 and reply.error["code"] == "NOT_FOUND"
    reply = api.post("/account", {})
    assert reply.status == 405 and reply.error["code"] == "INVALID_REQUEST"
    reply = api.get("/animations/not-a-uuid")
    assert reply.status == 400 and reply.error["param"] == "animation_id"
