"""Task lifecycle, credits, idempotency, assets, lists and previews over HTTP."""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from companion.media import probe
from companion.sandbox import SandboxConfig, SandboxThread
from tests.conftest import ROOMY
from tests.support.calls import Api, request
from tests.support.sandbox import animation_body, generate_video, generation_body, wait_task


def download(url: str, **headers: str) -> tuple[int, bytes, str]:
    """Follow the one redirect by hand; returns (status, bytes, the origin served from)."""
    first = request("GET", url, headers=headers)
    if first.status != 302:
        return first.status, first.body, ""
    location = first.headers["location"]
    second = request("GET", location, headers=headers)
    return second.status, second.body, urlsplit(location).netloc


def test_video_generation_lifecycle(make_sandbox) -> None:
    api = Api(make_sandbox(task_seconds=0.6).base_url)
    created = api.create("/video-generations", generation_body())
    assert created.status == 202 and "retry-after" in created.headers
    task = created.json
    assert (task["status"], task["stage"], task["progress"]) == ("queued", "queued", 0)
    assert task["object"] == "video_generation" and task["started_at"] is None
    seen, progress = set(), []
    while True:
        reply = api.get(f"/video-generations/{task['id']}")
        assert "retry-after" in reply.headers
        current = reply.json
        seen.add(current["status"])
        progress.append(current["progress"])
        if current["status"] == "succeeded":
            break
        time.sleep(0.05)
    assert "running" in seen and progress == sorted(progress) and len(set(progress)) > 2
    assert current["stage"] == "completed" and current["progress"] == 1
    assert current["started_at"] and current["finished_at"]
    [video] = current["outputs"]
    assert video["format"] == "clip_video" and video["mime_type"] == "video/mp4"
    media = video["media"]
    assert (media["width"], media["height"], media["fps"]) == (360, 360, 24)
    assert media["frame_count"] == 24 and media["duration_seconds"] == pytest.approx(1.0)


def test_credits_hold_charge_and_quote_equals_price(make_sandbox) -> None:
    api = Api(make_sandbox(credits=100).base_url)
    body = animation_body(formats=["spritesheet", "spritesheet_json", "godot_pack"])
    quote = api.post("/animations/quote", body).json
    assert quote["object"] == "quote" and quote["credits"] > 0 and quote["breakdown"]
    created = api.create("/animations", body).json
    assert created["credits"]["quoted"] == quote["credits"]
    assert created["credits"]["held"] == quote["credits"] and created["credits"]["status"] == "held"
    assert api.get("/credits/balance").json["available"] == 100 - quote["credits"]
    task = wait_task(api, "animation", created["id"])
    assert task["status"] == "succeeded"
    assert task["credits"] == {
        "quoted": quote["credits"],
        "held": 0,
        "charged": quote["credits"],
        "refunded": 0,
        "released": 0,
        "status": "charged",
    }
    assert api.get("/credits/balance").json["available"] == 100 - quote["credits"]
    formats = sorted(o["format"] for o in task["outputs"])
    assert formats == ["clip_video", "godot_pack", "spritesheet", "spritesheet_json"]


def test_insufficient_credits(make_sandbox) -> None:
    api = Api(make_sandbox(credits=3).base_url)
    reply = api.create("/animations", animation_body())
    assert reply.status == 402 and reply.error["code"] == "INSUFFICIENT_CREDITS"
    assert reply.error["details"]["available"] == 3
    assert api.get("/credits/balance").json["available"] == 3


def test_content_rejection_refunds_the_one_click_amount(make_sandbox) -> None:
    api = Api(make_sandbox(credits=100).base_url)
    task = wait_task(
        api,
        "animation",
        api.create("/animations", animation_body("sandbox:reject a knight")).json["id"],
    )
    assert task["status"] == "failed" and task["error"]["code"] == "PROVIDER_CONTENT_REJECTED"
    assert task["error"]["retryable"] is False and task["outputs"] == []
    credits = task["credits"]
    assert credits["charged"] == 0 and credits["refunded"] == credits["quoted"]
    assert credits["status"] == "refunded"
    assert api.get("/credits/balance").json["available"] == 100


def test_export_failure_keeps_the_video_and_charges_only_it(make_sandbox) -> None:
    api = Api(make_sandbox(credits=100).base_url)
    body = animation_body("walk sandbox:export-fail", formats=["gif"])
    quote = api.post("/animations/quote", body).json["breakdown"]
    task = wait_task(api, "animation", api.create("/animations", body).json["id"])
    assert task["status"] == "failed" and task["error"]["code"] == "EXPORT_FAILED"
    assert [o["format"] for o in task["outputs"]] == ["clip_video"]
    credits = task["credits"]
    assert credits["charged"] == quote["video_generation"]
    assert credits["released"] == quote["animation_export"]
    assert api.get("/credits/balance").json["available"] == 100 - quote["video_generation"]


def test_cancel_queued_releases_everything(make_sandbox) -> None:
    from companion.sandbox import Limits

    api = Api(make_sandbox(credits=100, task_seconds=5, limits=Limits(1, 5, 100, 1000)).base_url)
    running = api.create("/video-generations", generation_body()).json
    queued = api.create("/video-generations", generation_body()).json
    cancelled = api.post(f"/video-generations/{queued['id']}/cancel")
    assert cancelled.status == 200 and cancelled.json["status"] == "cancelled"
    assert cancelled.json["credits"]["released"] == cancelled.json["credits"]["quoted"]
    assert cancelled.json["credits"]["status"] == "released"
    assert api.get("/credits/balance").json["available"] == 100 - running["credits"]["quoted"]
    again = api.post(f"/video-generations/{queued['id']}/cancel").json
    assert again["status"] == "cancelled"


def test_cancel_during_export_charges_the_video_and_keeps_it(make_sandbox) -> None:
    api = Api(make_sandbox(credits=100, task_seconds=3).base_url)
    body = animation_body(formats=["gif"])
    created = api.create("/animations", body).json
    while api.get(f"/animations/{created['id']}").json["stage"] != "animation_export":
        time.sleep(0.05)
    reply = api.post(f"/animations/{created['id']}/cancel")
    assert reply.status == 200 and reply.json["status"] in ("cancelling", "cancelled")
    task = wait_task(api, "animation", created["id"])
    assert task["status"] == "cancelled" and task["finished_at"]
    assert [o["format"] for o in task["outputs"]] == ["clip_video"]
    quote = api.post("/animations/quote", body).json["breakdown"]
    assert task["credits"]["charged"] == quote["video_generation"]
    assert task["credits"]["released"] == quote["animation_export"]


def test_idempotency(make_sandbox) -> None:
    sandbox = make_sandbox(api_keys=["sk-test", "sk-second"])
    api = Api(sandbox.base_url)
    body = animation_body()
    first = api.create("/animations", body, "retry-me-please")
    again = api.create("/animations", body, "retry-me-please")
    assert first.status == again.status == 202 and first.json["id"] == again.json["id"]
    legacy = json.loads(json.dumps(body))
    legacy["export"]["transparent"] = False  # the legacy boolean normalises to the same body
    assert api.create("/animations", legacy, "retry-me-please").json["id"] == first.json["id"]
    conflict = api.create("/animations", animation_body("something else"), "retry-me-please")
    assert conflict.status == 409 and conflict.error["code"] == "IDEMPOTENCY_CONFLICT"
    assert conflict.error["retryable"] is False
    # Scoped by operation and by key identity.
    other_op = api.create("/video-generations", generation_body(), "retry-me-please")
    assert other_op.status == 202 and other_op.json["id"] != first.json["id"]
    other_key = Api(sandbox.base_url, key="sk-second").create(
        "/animations", body, "retry-me-please"
    )
    assert other_key.status == 202 and other_key.json["id"] != first.json["id"]
    balance = api.get("/credits/balance").json["available"]
    assert (
        balance == 1000 - 2 * first.json["credits"]["quoted"] - other_op.json["credits"]["quoted"]
    )


def test_idempotency_in_progress(make_sandbox) -> None:
    api = Api(make_sandbox(accept_seconds=0.6).base_url)
    body = generation_body()
    replies = {}

    def send(name: str) -> None:
        replies[name] = api.create("/video-generations", body, "concurrent-key")

    original = threading.Thread(target=send, args=("original",))
    original.start()
    time.sleep(0.2)
    send("duplicate")
    original.join()
    assert replies["original"].status == 202
    duplicate = replies["duplicate"]
    assert duplicate.status == 409 and duplicate.error["code"] == "IDEMPOTENCY_IN_PROGRESS"
    assert duplicate.error["retryable"] is True and duplicate.headers["retry-after"] == "1"
    resent = api.create("/video-generations", body, "concurrent-key")
    assert resent.status == 202 and resent.json["id"] == replies["original"].json["id"]


def test_state_survives_a_restart(tmp_path: Path) -> None:
    config = SandboxConfig(
        api_keys=["sk-test"],
        task_seconds=0.2,
        limits=ROOMY,
        min_retry_after=0,
        state=tmp_path / "sandbox.json",
    )
    with SandboxThread(config) as sandbox:
        api = Api(sandbox.base_url)
        first = api.create("/video-generations", generation_body(), "persisted-key-1")
        task = wait_task(api, "video_generation", first.json["id"])
        balance = api.get("/credits/balance").json["available"]
    assert "sk-test" not in (tmp_path / "sandbox.json").read_text()
    with SandboxThread(config) as sandbox:
        api = Api(sandbox.base_url)
        again = api.create("/video-generations", generation_body(), "persisted-key-1")
        assert again.status == 202 and again.json["id"] == first.json["id"]
        assert api.get("/credits/balance").json["available"] == balance
        asset = task["outputs"][0]
        status, data, _ = download(api.get(f"/assets/{asset['id']}").json["download_url"])
        assert status == 200 and len(data) == asset["byte_size"]


def test_downloads_come_from_a_second_origin_without_credentials(make_sandbox) -> None:
    sandbox = make_sandbox()
    api = Api(sandbox.base_url)
    task = generate_video(api)
    asset = task["outputs"][0]
    status, data, origin = download(asset["download_url"])
    assert status == 200 and len(data) == asset["byte_size"]
    assert origin and origin != urlsplit(sandbox.base_url).netloc
    assert hashlib.sha256(data).hexdigest()
    # A leaked key fails loudly, at the API origin and at storage.
    status, body, _ = download(asset["download_url"], Authorization="Bearer sk-test")
    assert status == 400 and json.loads(body)["error"]["param"] == "Authorization"
    location = request("GET", asset["download_url"]).headers["location"]
    assert request("GET", location, headers={"Authorization": "Bearer x"}).status == 400
    # Range requests work at storage, for resuming.
    partial = request("GET", location, headers={"Range": "bytes=10-19"})
    assert partial.status == 206 and partial.body == data[10:20]
    # A tampered signature is a 404.
    assert request("GET", asset["download_url"].replace("signature=", "signature=0")).status == 404


def test_expired_urls_are_refreshed_by_asset_lookup(make_sandbox) -> None:
    # A URL lives at least url_seconds and less than one second more.
    api = Api(make_sandbox(url_seconds=2).base_url)
    asset = generate_video(api)["outputs"][0]
    time.sleep(3.1)
    assert request("GET", asset["download_url"]).status == 404
    fresh = api.get(f"/assets/{asset['id']}").json
    assert fresh["download_url"] != asset["download_url"]
    assert download(fresh["download_url"])[0] == 200


def test_identifiers_are_not_interchangeable_and_other_accounts_see_404(make_sandbox) -> None:
    sandbox = make_sandbox(api_keys=["sk-test", "team-b:sk-other"])
    api, other = Api(sandbox.base_url), Api(sandbox.base_url, key="sk-other")
    task = generate_video(api)
    asset_id = task["outputs"][0]["id"]
    assert api.get(f"/assets/{task['id']}").status == 404
    assert api.get(f"/video-generations/{asset_id}").status == 404
    assert api.get(f"/animations/{task['id']}").status == 404  # a task of another kind
    assert other.get(f"/video-generations/{task['id']}").status == 404
    assert other.get(f"/assets/{asset_id}").status == 404
    assert other.post(f"/video-generations/{task['id']}/cancel").status == 404
    assert other.get("/video-generations").json["data"] == []
    body = {"source_video_asset_id": asset_id, "export": {"output_formats": ["gif"]}}
    reply = other.create("/animation-exports", body)
    assert reply.status == 404 and reply.error["param"] == "source_video_asset_id"


def test_exports_from_a_generated_video(make_sandbox) -> None:
    api = Api(make_sandbox().base_url)
    source = generate_video(api, alpha=True)["outputs"][0]
    body = {
        "source_video_asset_id": source["id"],
        "export": {
            "fps": 8,
            "output_formats": ["spritesheet", "spritesheet_json", "webm_alpha"],
            "output_width": 64,
            "output_height": 64,
        },
        "selection": {"mode": "range", "start_seconds": 0.25, "duration_seconds": 0.5},
        "metadata": {"name": "hero"},
    }
    quote = api.post("/animation-exports/quote", body).json["credits"]
    created = api.create("/animation-exports", body).json
    assert created["object"] == "animation_export" and created["credits"]["quoted"] == quote
    task = wait_task(api, "animation_export", created["id"])
    assert task["status"] == "succeeded", task["error"]
    by_format = {o["format"]: o for o in task["outputs"]}
    assert set(by_format) == {"spritesheet", "spritesheet_json", "webm_alpha"}
    status, data, _ = download(by_format["spritesheet_json"]["download_url"])
    assert status == 200
    sheet = json.loads(data)
    assert len(sheet["frames"]) == 4 and sheet["meta"]["image"] == "hero.png"
    # Opaque sources cannot feed alpha formats.
    opaque = generate_video(api)["outputs"][0]
    reply = api.post("/animation-exports/quote", {**body, "source_video_asset_id": opaque["id"]})
    assert reply.status == 400 and reply.error["param"] == "export.output_formats"


def test_lists_follow_opaque_cursors(make_sandbox) -> None:
    api = Api(make_sandbox(task_seconds=0.05).base_url)
    ids = [api.create("/video-generations", generation_body()).json["id"] for _ in range(5)]
    seen, cursor = [], None
    while True:
        page = api.get("/video-generations?limit=2" + (f"&cursor={cursor}" if cursor else "")).json
        assert page["object"] == "list" and len(page["data"]) <= 2
        seen += [t["id"] for t in page["data"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == list(reversed(ids))
    assert api.get("/animations").json["data"] == []
    for query in ("limit=0", "limit=101", "limit=x", "cursor=bogus"):
        reply = api.get(f"/video-generations?{query}")
        assert reply.status == 400 and reply.error["param"] in ("limit", "cursor")


def test_preview_contact_sheet(make_sandbox, tmp_path: Path) -> None:
    api = Api(make_sandbox().base_url)
    source = generate_video(api)["outputs"][0]
    path = f"/assets/{source['id']}/preview"
    reply = api.post(path, {"timestamps_seconds": [0.9, 0.0, 0.5], "max_frame_size": 96})
    assert reply.status == 200, reply.body
    preview = reply.json
    assert preview["object"] == "video_preview" and preview["source_video_asset_id"] == source["id"]
    assert [c["index"] for c in preview["cells"]] == [0, 1, 2]
    assert [c["requested_time_seconds"] for c in preview["cells"]] == [0.9, 0.0, 0.5]
    for cell in preview["cells"]:
        assert cell["source_time_seconds"] <= cell["requested_time_seconds"] + 1e-9
        assert max(cell["rect"]["width"], cell["rect"]["height"]) <= 96
    image = preview["image"]
    assert image["format"] == "video_preview" and image["media"] is None
    status, data, _ = download(image["download_url"])
    assert status == 200 and data.startswith(b"\x89PNG")
    again = api.post(path, {"timestamps_seconds": [0.9, 0.0, 0.5], "max_frame_size": 96}).json
    assert again["image"]["id"] == image["id"]
    late = api.post(path, {"timestamps_seconds": [1.0]})
    assert late.status == 400 and late.error["param"] == "timestamps_seconds"
    assert api.post(f"/assets/{image['id']}/preview", {"timestamps_seconds": [0]}).status == 400
    assert api.post(f"/assets/{uuid.uuid4()}/preview", {"timestamps_seconds": [0]}).status == 404


def test_models_listing(make_sandbox) -> None:
    models = Api(make_sandbox().base_url).get("/models").json
    assert models["object"] == "list" and models["data"][0]["id"] == "sandbox-motion-1"
    assert "alpha_key" in models["data"][0]["transparency_modes"]


def test_generated_video_matches_its_media(make_sandbox, tmp_path: Path) -> None:
    api = Api(make_sandbox().base_url)
    asset = generate_video(api)["outputs"][0]
    path = tmp_path / "v.mp4"
    path.write_bytes(download(asset["download_url"])[1])
    info = probe(path)
    assert (info.width, info.height, info.frame_count) == (
        asset["media"]["width"],
        asset["media"]["height"],
        asset["media"]["frame_count"],
    )
