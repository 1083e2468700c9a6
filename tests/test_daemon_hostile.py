"""A hostile caller and a hostile drop folder: the daemon answers JSON, keeps serving,
and never takes what it should not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.daemon_helpers import DaemonThread
from tests.http_helpers import request

DEEP_ARRAYS = b"[" * 200_000
DEEP_OBJECTS = b'{"a":' * 40_000 + b"1" + b"}" * 40_000
NESTED_FIELD = b'{"root": "/x", "defaults": ' + b'{"a":' * 200 + b"1" + b"}" * 201


@pytest.mark.parametrize("path", ["/api/v1/animate", "/api/v1/quote", "/api/v1/projects"])
@pytest.mark.parametrize("body", [DEEP_ARRAYS, DEEP_OBJECTS, NESTED_FIELD])
def test_pathological_json_is_a_json_400(daemon: DaemonThread, path: str, body: bytes) -> None:
    reply = request(
        "POST",
        daemon.url + path,
        body=body,
        headers={
            "Authorization": f"Bearer {daemon.info['token']}",
            "Content-Type": "application/json",
        },
    )
    assert reply.headers.get("content-type", "").startswith("application/json"), reply.body[:200]
    if path.endswith("projects") and len(body) > 64 * 1024:  # registrations are small
        assert reply.status == 413 and reply.error["code"] == "TOO_LARGE"
    else:
        assert reply.status == 400, reply.body[:300]
        assert reply.error["code"] == "TOO_DEEP" and "32 levels" in reply.error["message"]


def test_a_registration_body_is_small(daemon: DaemonThread, tmp_path: Path) -> None:
    body = b'{"root": "/x", "defaults": {"prompt": "' + b"a" * 100_000 + b'"}}'
    reply = request(
        "POST",
        daemon.url + "/api/v1/projects",
        body=body,
        headers={
            "Authorization": f"Bearer {daemon.info['token']}",
            "Content-Type": "application/json",
        },
    )
    assert reply.status == 413 and reply.error["code"] == "TOO_LARGE"
