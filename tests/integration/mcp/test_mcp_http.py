"""/mcp on the daemon, driven by the SDK's own client over streamable HTTP in both
protocol eras: with no agent limits every paid call asks; declined, cancelled or unasked
it spends nothing and says how a person approves; accepted it spends the quote once;
COMPANION_NO_SPEND refuses; hostile arguments are refused naming the field, nothing
written outside, nothing spent; strangers (no token, a foreign Host or Origin) are
refused at the door."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.agents import (
    ERAS,
    Served,
    animate_body,
    answering,
    balance,
    files_under,
    http_client,
)
from tests.support.calls import request
from tests.support.daemon import wait_final
from tests.support.paid import creates

PICTURE = {"legacy": "hero", "2026-07-28": "coin"}  # one job per era, one daemon
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "stranger", "version": "1"},
    },
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    running = Served(tmp_path_factory.mktemp("mcp-http"))
    yield running
    running.stop()


def _call(served: Served, mode: str, tool: str, body: dict[str, Any], action: str) -> Any:
    elicit, asked = answering(action) if action != "none" else (None, [])

    async def drive() -> Any:
        async with http_client(served.daemon, mode, elicit=elicit) as client:
            return await client.call_tool(tool, body)

    return asyncio.run(drive()), asked


@pytest.mark.parametrize("mode", ERAS)
def test_over_the_limits_nothing_is_spent_unless_the_user_agrees(served: Served, mode: str) -> None:
    body = animate_body(served.project, PICTURE[mode])
    before, made_before = balance(served.sandbox), len(creates(served.sandbox))
    for action in ("decline", "cancel", "none"):  # "none": a client that cannot ask
        result, asked = _call(served, mode, "animate", body, action)
        said = result.structured_content
        assert not result.is_error, result.content
        assert said["made"] is False and said["spent"] == 0, said
        assert "companion jobs approve" in said["note"] and "nothing was spent" in said["note"]
        assert said["asked"] is (action != "none")
        if action != "none":
            assert len(asked) == 1 and "credits" in asked[0] and "Balance" in asked[0]
    assert balance(served.sandbox) == before and len(creates(served.sandbox)) == made_before
    quote, _ = _call(served, mode, "quote", body, "none")
    priced = quote.structured_content
    assert priced["agents"]["verdict"] == "ask"
    # Agreed: spent once, what was quoted; the same call again is free and asks nothing.
    result, asked = _call(served, mode, "animate", body, "accept")
    said = result.structured_content
    assert said["made"] and said["asked"] and said["spent"] == priced["credits"] > 0
    assert len(asked) == 1
    again, asked_again = _call(served, mode, "animate", body, "accept")
    assert again.structured_content["spent"] == 0 and asked_again == []
    assert again.structured_content["job"]["id"] == said["job"]["id"]
    # Answered at once (no progress token): the job lands on its own, before the next test.
    assert wait_final(served.daemon, said["job"]["id"])["state"] == "done"
    assert balance(served.sandbox) == before - priced["credits"]
    assert len(creates(served.sandbox)) == made_before + 1


def test_no_spend_refuses_and_spends_nothing(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPANION_NO_SPEND", "1")
    body = animate_body(served.project, "slime", name="refused_slime")
    before, made_before = balance(served.sandbox), len(creates(served.sandbox))
    for mode in ERAS:
        result, asked = _call(served, mode, "animate", body, "accept")
        assert result.is_error and "COMPANION_NO_SPEND" in result.content[0].text
        assert asked == []  # refused outright, never asked
    credits, _ = _call(served, "legacy", "credits", {}, "none")
    assert credits.structured_content["agents"]["no_spend"] is True
    assert balance(served.sandbox) == before and len(creates(served.sandbox)) == made_before


def test_hostile_arguments_are_refused_naming_the_field(served: Served) -> None:
    project = served.project
    outside = served.root / "outside.png"
    outside.write_bytes((project / "art" / "hero.png").read_bytes())
    (project / "art" / "link.png").symlink_to(outside)
    body = animate_body(project, "slime", name="hostile")
    export = body["export"]
    cases: list[tuple[dict[str, Any], str]] = [
        ({**body, "image_path": "../outside.png"}, "image_path"),
        ({**body, "image_path": str(outside)}, "image_path"),
        ({**body, "image_path": "art/link.png"}, "image_path"),
        ({**body, "target_folder": "../escape"}, "target_folder"),
        ({**body, "name": "../../escape"}, "name"),
        ({**body, "prompt": "x" * 10_000_000}, "prompt"),
        ({**body, "export": {**export, "output_width": float("nan")}}, "output_width"),
        ({**body, "plant": "code"}, "plant"),
        ({**body, "project_root": "/"}, "project"),
    ]
    before, made_before = balance(served.sandbox), len(creates(served.sandbox))
    everything = files_under(served.root)

    async def drive() -> list[Any]:
        async with http_client(served.daemon, "legacy") as client:
            answers = [await client.call_tool("animate", sent) for sent, _ in cases]
            answers.append(await client.call_tool("job", {"id": "../../status"}))
            answers.append(await client.call_tool("recut", {"id": "x/../y"}))
            return answers

    answers = asyncio.run(drive())
    for (_sent, field), answer in zip(cases, answers, strict=False):
        text = answer.content[0].text
        assert answer.is_error, (field, text[:200])
        assert field in text and len(text) < 2000, (field, text[:200])
    assert all(a.is_error and "id:" in a.content[0].text for a in answers[len(cases) :])
    assert files_under(served.root) == everything  # nothing written, inside or out
    assert balance(served.sandbox) == before and len(creates(served.sandbox)) == made_before


def test_strangers_are_refused_at_the_door(served: Served) -> None:
    daemon = served.daemon
    url = daemon.url + "/mcp"
    port = daemon.info["port"]
    good = {
        "Authorization": f"Bearer {daemon.info['token']}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    sent = bytes(str(INITIALIZE).replace("'", '"'), "utf-8")
    for headers, status, code in (
        ({k: v for k, v in good.items() if k != "Authorization"}, 401, "BAD_TOKEN"),
        ({**good, "Authorization": "Bearer wrong"}, 401, "BAD_TOKEN"),
        ({**good, "Host": f"evil.example:{port}"}, 421, "BAD_HOST"),
        ({**good, "Origin": "https://evil.example"}, 403, "FOREIGN_ORIGIN"),
    ):
        reply = request("POST", url, body=sent, headers=headers)
        assert reply.status == status and reply.json["error"]["code"] == code
    assert request("POST", url, body=sent, headers=good).status == 200

    async def wrong_token() -> None:
        async with http_client(daemon, "legacy", token="wrong") as client:
            await client.list_tools()

    with pytest.raises(BaseException):  # noqa: B017 (the SDK says it its own way)
        asyncio.run(wrong_token())
    assert os.environ.get("COMPANION_NO_SPEND") is None
