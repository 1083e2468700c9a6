"""The command line talking to its own daemon: loopback, the token from daemon.json,
and never through a proxy (HTTP_PROXY may be set for the service; the daemon is here)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from companion.cli.errors import NotRunning


def daemon_info(home: Path) -> dict[str, Any]:
    try:
        info: dict[str, Any] = json.loads((home / "daemon.json").read_text())
        int(info["port"]), str(info["token"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise NotRunning(
            "the daemon is not running; start it with: companion serve "
            "(or at every login: companion service install)"
        ) from exc
    return info


def call(home: Path, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """(status, parsed JSON) of one request to the daemon; refusals are answers too."""
    info = daemon_info(home)
    url = f"http://127.0.0.1:{int(info['port'])}{path}"
    data = None if body is None else json.dumps(body).encode()
    headers = {"Authorization": f"Bearer {info['token']}"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    # urllib loads only for a command that calls (`projects list` imports this module
    # and never does); the opener ignores any proxy.
    import urllib.error
    import urllib.request

    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with direct.open(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        try:
            return exc.code, json.loads(exc.read() or b"null")
        except ValueError:
            return exc.code, None
    except (OSError, ValueError) as exc:
        if not _alive(info.get("pid")):  # a daemon.json left by one that has ended
            raise NotRunning(
                f"the daemon is not running (pid {info.get('pid')}, which wrote its "
                "daemon.json, has ended); start it with: companion serve"
            ) from exc
        raise NotRunning(
            f"the daemon (pid {info.get('pid')}) does not answer on 127.0.0.1:{info['port']} "
            f"({getattr(exc, 'reason', exc)}); restart it with: companion serve"
        ) from exc


def _alive(pid: Any) -> bool:
    """Whether a process of that id exists (True when it cannot be told)."""
    if not isinstance(pid, int) or pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, another user's
    return True


def refusal(reply: Any) -> str:
    """The daemon's own words for a refusal."""
    if isinstance(reply, dict) and isinstance(reply.get("error"), dict):
        return str(reply["error"].get("message") or reply["error"].get("code"))
    return "the daemon refused it"
