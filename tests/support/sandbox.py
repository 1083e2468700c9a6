"""Shared steps of the sandbox tests."""

from __future__ import annotations

import base64
import time
from typing import Any

from companion.sandbox.journal import Entry
from tests.support.calls import Api, png_bytes

PLURAL = {
    "video_generation": "video-generations",
    "animation_export": "animation-exports",
    "animation": "animations",
}


def wait_task(api: Api, kind: str, task_id: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = api.get(f"/{PLURAL[kind]}/{task_id}").json
        if task["status"] in ("succeeded", "failed", "cancelled"):
            return task
        time.sleep(0.05)
    raise AssertionError(f"task {task_id} did not finish")


def inline_png(**kw: Any) -> dict[str, str]:
    return {
        "type": "base64",
        "media_type": "image/png",
        "data": base64.b64encode(png_bytes(**kw)).decode(),
    }


def generation_body(prompt: str = "idle breathing", **video: Any) -> dict[str, Any]:
    return {
        "input": {"first_frame": inline_png()},
        "prompt": prompt,
        "video": {"duration_seconds": 1, "resolution": "360p", **video},
    }


def animation_body(
    prompt: str = "idle breathing",
    formats: list[str] | None = None,
    alpha: bool = False,
    **export: Any,
) -> dict[str, Any]:
    body = generation_body(prompt, transparency={"mode": "alpha_key"} if alpha else None)
    body["export"] = {
        "frame_count": 4,
        "output_width": 64,
        "output_height": 64,
        "output_formats": formats or ["spritesheet", "spritesheet_json"],
        **export,
    }
    return body


def generate_video(api: Api, alpha: bool = False) -> dict[str, Any]:
    body = generation_body(transparency={"mode": "alpha_key"} if alpha else None)
    reply = api.create("/video-generations", body)
    assert reply.status == 202, reply.body
    task = wait_task(api, "video_generation", reply.json["id"])
    assert task["status"] == "succeeded", task
    return task


def listed(api: Api, kind: str) -> list[dict[str, Any]]:
    """Every task of a list (`animations`, `video-generations`, `animation-exports`) read
    on every page, in whatever order and page size the face gives (spec 2.2, 4.7), less the
    tasks of other clients of the account the latitude face starts with (their metadata
    names their `client`)."""
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = api.get(f"/{kind}?limit=100" + (f"&cursor={cursor}" if cursor else "")).json
        found += [t for t in page["data"] if "client" not in (t.get("metadata") or {})]
        cursor = page["next_cursor"]
        if cursor is None:
            return found


def made_outputs(task: dict[str, Any]) -> list[dict[str, Any]]:
    """A task's outputs less the one the latitude face adds, of a format no client knows
    (spec 2.4)."""
    from companion.sandbox.face import LATITUDE

    return [o for o in task["outputs"] if o["format"] != LATITUDE.extra_output_format]


SLACK = 0.05  # scheduling jitter allowed on "not before" moments


def check_manners(entries: list[Entry]) -> None:
    """The client's manners, as the server saw them."""
    api = [e for e in entries if e.origin == "api"]
    for i, entry in enumerate(api):
        if entry.retry_after is None or entry.answered is None:
            continue
        moment = entry.answered + entry.retry_after - SLACK
        later = api[i + 1 :]
        if entry.status == 429:  # account-wide: nothing may follow before the moment
            following = later[:1]
        elif entry.method == "POST" and entry.status == 202:  # the created task's first poll
            following = [
                e for e in later if e.method == "GET" and e.path.startswith(entry.path + "/")
            ][:1]
        else:  # polls of a task, and retries of the same request
            following = [e for e in later if (e.method, e.path) == (entry.method, entry.path)][:1]
        for nxt in following:
            assert nxt.arrived >= moment, (
                f"{nxt.method} {nxt.path} came {moment - nxt.arrived:.2f} s before the "
                f"Retry-After of {entry.method} {entry.path} ({entry.status})"
            )
    creates = [
        e
        for e in api
        if e.method == "POST"
        and e.path in ("/v1/animations", "/v1/video-generations", "/v1/animation-exports")
    ]
    by_key: dict[str, set[str | None]] = {}
    for create in creates:
        assert create.idempotency_key, "a create went out without an Idempotency-Key"
        by_key.setdefault(create.idempotency_key, set()).add(create.body_sha256)
    assert all(len(bodies) == 1 for bodies in by_key.values()), "a key was reused for another body"
    downloads = [e for e in entries if e.origin == "storage" or e.path.endswith("/content")]
    assert downloads and not any(e.authorization for e in downloads), (
        "a download carried credentials"
    )
