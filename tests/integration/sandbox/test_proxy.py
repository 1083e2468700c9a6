"""The user's proxy: remote calls go through HTTP_PROXY / HTTPS_PROXY unless NO_PROXY
names the host, as with every HTTP client; the daemon's localhost API never does.

The proxy is Debian's tinyproxy on loopback, logging every request it forwards. The
sandbox speaks plain HTTP, so the proxy sees each request whole (it must, to forward it,
Authorization header included) and logs its request line: method, path and query (a
signed download URL's too). What the test shows is that neither the key nor the header
ever reaches the proxy's log. Against the real service (HTTPS) the proxy sees only
`CONNECT host:443` and the bytes of TLS."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.cli import environment
from tests.support.daemon import DaemonThread


@dataclass
class Proxy:
    url: str
    log: Path

    def requests(self) -> list[str]:
        """Every request line the proxy forwarded, in order."""
        if not self.log.exists():
            return []
        return [
            line.split("): ", 1)[1]
            for line in self.log.read_text().splitlines()
            if "Request (file descriptor" in line
        ]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[Proxy]:
    binary = shutil.which("tinyproxy") or "/usr/bin/tinyproxy"
    if not Path(binary).exists():
        if os.environ.get("CI") == "true":
            pytest.fail("CI must provide tinyproxy (Debian, .ci/run)")
        pytest.skip("tinyproxy is not installed (apt-get install tinyproxy)")
    port = _free_port()
    log = tmp_path / "proxy.log"
    config = tmp_path / "tinyproxy.conf"
    config.write_text(
        f'Port {port}\nListen 127.0.0.1\nTimeout 30\nLogFile "{log}"\nLogLevel Connect\n'
        "MaxClients 50\nAllow 127.0.0.1\nDisableViaHeader Yes\n"
    )
    process = subprocess.Popen(
        [binary, "-d", "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("tinyproxy did not start") from None
                time.sleep(0.05)
        yield Proxy(f"http://127.0.0.1:{port}", log)
    finally:
        process.terminate()
        process.wait(10)


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def _with_proxy(env: dict[str, str], proxy: Proxy, no_proxy: str = "") -> dict[str, str]:
    clean = {k: v for k, v in env.items() if k.lower() not in ("http_proxy", "https_proxy")}
    clean = {k: v for k, v in clean.items() if k.lower() != "no_proxy"}
    clean.update(HTTP_PROXY=proxy.url, HTTPS_PROXY=proxy.url)
    if no_proxy:
        clean["NO_PROXY"] = no_proxy
    return clean


def test_animate_goes_through_the_proxy_and_the_key_never_reaches_its_log(
    make_sandbox: Callable[..., SandboxThread], proxy: Proxy, tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    draw_character(64).save(tmp_path / "hero.png")
    env = _with_proxy(environment(sandbox.base_url, tmp_path / "home"), proxy)
    result = _run(
        env, "animate", str(tmp_path / "hero.png"), "--prompt", "idle", "--formats", "gif",
        "--frame-count", "4", "--width", "64", "--height", "64",
        "--seconds", "1", "--resolution", "360p", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = proxy.requests()
    base = sandbox.base_url
    assert any(line.startswith(f"POST {base}/video-generations ") for line in lines), lines
    assert any(line.startswith(f"GET {base}/video-generations/") for line in lines), lines
    # The download origin (another port) is reached through the proxy as well.
    storage = [line for line in lines if "/v1/" not in line]
    assert storage, lines
    text = proxy.log.read_text()
    assert TEST_KEY not in text and "Bearer" not in text and "Authorization" not in text
    assert (tmp_path / "out" / "hero.gif").exists()


def test_no_proxy_names_the_hosts_reached_directly(
    make_sandbox: Callable[..., SandboxThread], proxy: Proxy, tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    env = _with_proxy(environment(sandbox.base_url, tmp_path / "home"), proxy, no_proxy="127.0.0.1")
    result = _run(env, "credits", "--json")
    assert result.returncode == 0, result.stderr
    assert proxy.requests() == []


def test_the_daemon_calls_out_through_the_proxy_and_its_own_api_never_does(
    make_sandbox: Callable[..., SandboxThread],
    proxy: Proxy,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sandbox = make_sandbox()
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        port = daemon.info["port"]
        env = _with_proxy(environment(sandbox.base_url, tmp_path / "home"), proxy)
        status = _run(env, "service", "status", "--json")
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["daemon"].startswith(
            f"{json.loads((tmp_path / 'home' / 'daemon.json').read_text())['version']} "
        )
    finally:
        daemon.stop()
    lines = proxy.requests()
    assert any(f"{sandbox.base_url}/account" in line for line in lines), lines
    assert not [line for line in lines if f":{port}/" in line], lines


def test_the_embedded_sandbox_is_never_sent_to_a_proxy(tmp_path: Path) -> None:
    """No key: the sandbox inside the command, on loopback, is reached directly even
    when the proxy named in the environment is down."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env = _with_proxy(env, Proxy(f"http://127.0.0.1:{_free_port()}", tmp_path / "none"))
    env["COMPANION_HOME"] = str(tmp_path / "home")
    result = _run(env, "credits", "--json")
    assert result.returncode == 0, result.stderr
