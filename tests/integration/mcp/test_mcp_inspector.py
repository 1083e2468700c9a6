"""`companion mcp` driven by a client this project did not write, the MCP Inspector's CLI,
in both protocol eras: over stdio (the inspector spawns the command) and over HTTP (the
daemon's /mcp with its token as the Bearer header). It lists the documented tools, sees
quote's read-only annotation, and gets quote's price as structured content; quoting
spends nothing. A wrong token is refused without a prompt."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.agents import Served, agent_home, animate_body, balance, godot_sample
from tests.support.mcp_inspector import Inspector, mcp_inspector
from tests.support.paid import creates
from tests.support.paths import REPO

TOOLS = {
    "quote", "animate", "character_quote", "character", "recut", "job", "jobs", "cancel",
    "generations", "credits", "models", "projects",
}  # fmt: skip
ERAS = ("legacy", "modern")  # the inspector's names for the two protocol eras


def _list_and_quote(
    inspector: Inspector, body: dict[str, Any], *target: str, secret: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    listed = inspector.run("--method", "tools/list", *target, secret=secret)
    quoted = inspector.run(
        "--method", "tools/call", "--tool-name", "quote",
        # The body whole and verbatim: --tool-arg would coerce its nested values.
        "--tool-args-json", json.dumps(body),
        *target, secret=secret,
    )  # fmt: skip
    return listed["result"], quoted["result"]


def _check(era: str, listed: dict[str, Any], quoted: dict[str, Any], before: int) -> None:
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert set(tools) == TOOLS
    assert tools["quote"]["annotations"]["readOnlyHint"] is True
    assert tools["animate"]["annotations"]["readOnlyHint"] is False
    assert "project_root" in tools["quote"]["inputSchema"]["properties"]
    assert quoted["isError"] is False, quoted["content"]
    priced = quoted["structuredContent"]
    assert priced["credits"] == priced["spends"] > 0 and priced["balance"] == before
    assert priced["agents"]["verdict"] == "within"
    assert json.loads(quoted["content"][0]["text"])["quote_id"] == priced["quote_id"]
    if era == "modern":  # each answer names its server in the per-request era
        assert quoted["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "companion"


@pytest.mark.slow
@pytest.mark.parametrize("era", ERAS)
def test_the_inspector_lists_and_quotes_over_stdio(
    era: str, make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    inspector = mcp_inspector(tmp_path / "inspector")
    sandbox = make_sandbox(journal=True)
    project = godot_sample(tmp_path)
    home = agent_home(tmp_path, project, {"per_call": 500})
    # The inspector hands its server a bare environment: what companion needs, said.
    server = {
        "COMPANION_HOME": str(home),
        "COMPANION_BASE_URL": sandbox.base_url,
        "COMPANION_API_KEY": TEST_KEY,
        "PYTHONPATH": str(REPO),
    }
    target = [
        "--protocol-era", era,
        *(arg for name, value in server.items() for arg in ("-e", f"{name}={value}")),
        "--cwd", str(REPO),
        "--", sys.executable, "-m", "companion", "mcp",
    ]  # fmt: skip
    before = balance(sandbox)
    listed, quoted = _list_and_quote(inspector, animate_body(project), *target)
    _check(era, listed, quoted, before)
    assert balance(sandbox) == before and creates(sandbox) == []


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    running = Served(tmp_path_factory.mktemp("mcp-inspector"), {"per_call": 500})
    yield running
    running.stop()


@pytest.mark.slow
@pytest.mark.parametrize("era", ERAS)
def test_the_inspector_lists_and_quotes_over_http(era: str, served: Served, tmp_path: Path) -> None:
    inspector = mcp_inspector(tmp_path / "inspector")
    sandbox, daemon = served.sandbox, served.daemon
    token = daemon.info["token"]
    # --stored-auth-only: a refused token ends the run instead of starting OAuth.
    target = [
        "--transport", "http", "--server-url", daemon.url + "/mcp",
        "--protocol-era", era, "--stored-auth-only",
        "--header", f"Authorization: Bearer {token}",
    ]  # fmt: skip
    before = balance(sandbox)
    listed, quoted = _list_and_quote(inspector, animate_body(served.project), *target, secret=token)
    _check(era, listed, quoted, before)
    refused = inspector.fails(
        "--method", "tools/list", *target[:-1], "Authorization: Bearer wrong", secret=token
    )
    assert "auth_required" in refused
    assert balance(sandbox) == before and creates(sandbox) == []
