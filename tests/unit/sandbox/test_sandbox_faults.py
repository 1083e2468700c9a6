"""Each seeded fault profile does what the README says, over real HTTP."""

from __future__ import annotations

import http.client
import time

import pytest

from companion.sandbox.faults import Faults
from tests.support.calls import Api, request
from tests.support.sandbox import generate_video, generation_body


def attempt(call) -> object:  # type: ignore[no-untyped-def]
    try:
        return call()
    except (ConnectionError, http.client.HTTPException) as exc:
        return exc


def test_same_seed_same_decisions() -> None:
    first, second, other = Faults("chaos:7"), Faults("chaos:7"), Faults("chaos:8")
    rolls = [[f.unavailable() for _ in range(200)] for f in (first, second, other)]
    assert rolls[0] == rolls[1] != rolls[2]
    with pytest.raises(ValueError, match="unknown fault profile"):
        Faults("gremlins")


def test_unavailable(make_sandbox) -> None:
    api = Api(make_sandbox(faults="unavailable:1").base_url)
    replies = [api.get("/credits/balance") for _ in range(60)]
    refused = [r for r in replies if r.status == 503]
    assert 0 < len(refused) < 30 and all(r.status in (200, 503) for r in replies)
    assert all(r.error["code"] == "API_UNAVAILABLE" and r.error["retryable"] for r in refused)
    assert all(r.headers["retry-after"] == "1" for r in refused)
    creates = [api.create("/video-generations", generation_body()) for _ in range(30)]
    codes = {r.error["code"] for r in creates if r.status == 503}
    assert codes == {"PROVIDER_UNAVAILABLE"}


def test_internal(make_sandbox) -> None:
    api = Api(make_sandbox(faults="internal:3").base_url)
    replies = [api.get("/credits/balance") for _ in range(60)]
    failed = [r for r in replies if r.status == 500]
    assert failed and all(
        r.error["code"] == "INTERNAL_ERROR" and r.error["retryable"] for r in failed
    )


def test_resets(make_sandbox) -> None:
    api = Api(make_sandbox(faults="resets:2").base_url)
    outcomes = [attempt(lambda: api.get("/credits/balance")) for _ in range(60)]
    dropped = [o for o in outcomes if isinstance(o, Exception)]
    assert 0 < len(dropped) < 20


def test_slow(make_sandbox) -> None:
    api = Api(make_sandbox(faults="slow").base_url)
    started = time.monotonic()
    assert api.get("/credits/balance").status == 200
    assert time.monotonic() - started >= 0.2


def test_storm(make_sandbox) -> None:
    sandbox = make_sandbox(faults="storm")
    api = Api(sandbox.base_url)
    assert api.get("/credits/balance").status == 200
    sandbox.call(lambda: setattr(sandbox.service.faults, "_storm_origin", time.monotonic() - 6.2))
    reply = api.get("/credits/balance")
    assert reply.status == 429 and reply.error["code"] == "RATE_LIMITED"
    assert reply.headers["retry-after"] == "1"


def test_truncated_downloads(make_sandbox) -> None:
    api = Api(make_sandbox(faults="truncated:5").base_url)
    asset = generate_video(api)["outputs"][0]
    location = request("GET", asset["download_url"]).headers["location"]
    results = [attempt(lambda: request("GET", location)) for _ in range(20)]
    short = [r for r in results if isinstance(r, http.client.IncompleteRead)]
    whole = [
        r for r in results if not isinstance(r, Exception) and len(r.body) == asset["byte_size"]
    ]
    assert short and whole
    ranged = request("GET", location, headers={"Range": f"bytes=100-{asset['byte_size'] - 1}"})
    assert ranged.status == 206 and len(ranged.body) == asset["byte_size"] - 100


def test_dropped_creates_are_recorded_and_replayable(make_sandbox) -> None:
    api = Api(make_sandbox(faults="dropped-create:4").base_url)
    dropped_keys = []
    for i in range(12):
        key = f"dropped-create-{i:04d}"
        outcome = attempt(lambda key=key: api.create("/video-generations", generation_body(), key))
        if isinstance(outcome, Exception):
            dropped_keys.append(key)
    assert dropped_keys
    listed = api.get("/video-generations?limit=100").json["data"]
    assert len(listed) == 12  # every create was recorded, answered or not
    replayed = []
    for key in dropped_keys:
        for _ in range(10):  # the replay itself may be dropped again
            outcome = attempt(
                lambda key=key: api.create("/video-generations", generation_body(), key)
            )
            if not isinstance(outcome, Exception):
                replayed.append(outcome)
                break
    assert all(r.status == 202 for r in replayed) and len(replayed) == len(dropped_keys)
    assert len(api.get("/video-generations?limit=100").json["data"]) == 12  # no duplicates


def test_latitude_creates_lists_and_credits(make_sandbox) -> None:
    """The latitude answers of creates, lists and credits (docs/sandbox.md), narrowed:
    a resend within the in-progress window is 409 IN_PROGRESS then the original; lists
    oldest first, a few a page, after the other clients' tasks; the hold raised at create
    and the charge posted a while after the end."""
    from companion.sandbox.face import LATITUDE, with_changes

    # A rise at create (latitude's own answer is a fall: see companion.sandbox.face).
    face = with_changes(
        LATITUDE, in_progress_seconds=1.0, credits_posted_after=1.0, create_price_rise=0.25
    )
    api = Api(make_sandbox(faults="dropped-create:1", face=face).base_url)
    key = "latitude-create-0001"
    assert isinstance(attempt(lambda: api.create("/video-generations", generation_body(), key)),
                      Exception)  # fmt: skip
    busy = api.create("/video-generations", generation_body(), key)
    assert busy.status == 409 and busy.json["error"]["code"] == "IDEMPOTENCY_IN_PROGRESS"
    assert busy.json["error"]["retryable"] and busy.headers.get("retry-after") == "1"
    time.sleep(1.1)
    task = api.create("/video-generations", generation_body(), key).json
    quote = api.post("/video-generations/quote", {"video": generation_body()["video"]}).json
    assert task["credits"]["held"] == task["credits"]["quoted"] > quote["credits"]
    seen, cursor, pages = [], None, 0
    while True:
        page = api.get("/video-generations?limit=100" + (f"&cursor={cursor}" if cursor else ""))
        assert len(page.json["data"]) <= 7
        seen += page.json["data"]
        pages += 1
        cursor = page.json["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == 131 and seen[-1]["id"] == task["id"] and pages == 19
    assert len({t["id"] for t in seen}) == 131
    for _ in range(100):
        done = api.get(f"/video-generations/{task['id']}").json
        if done["status"] == "succeeded":
            break
        time.sleep(0.05)
    assert done["credits"]["status"] == "held" and done["credits"]["charged"] == 0
    assert done["credits"]["held"] == task["credits"]["held"]
    for _ in range(100):
        done = api.get(f"/video-generations/{task['id']}").json
        if done["credits"]["status"] != "held":
            break
        time.sleep(0.05)
    assert done["credits"]["status"] == "charged"
    assert done["credits"]["charged"] == task["credits"]["quoted"] and done["credits"]["held"] == 0
