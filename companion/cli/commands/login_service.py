"""`companion service install|uninstall|status`: the daemon started at login.

Where the platform's service manager answers (systemd's user manager, launchd, the Task
Scheduler), install also loads and starts the service; where it does not (a container,
a session without a user manager), the file is still written and checked, and the
commands that start it by hand are printed."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from companion.cli.errors import InputFailure
from companion.cli.session import settings
from companion.daemon import autostart
from companion.daemon.autostart import Service
from companion.daemon.errors import AutostartError
from companion.settings.config import default_home


def _service() -> Service:
    home = settings().home.expanduser().absolute()
    python = Path(sys.executable)
    if sys.platform == "win32" and python.with_name("pythonw.exe").exists():
        python = python.with_name("pythonw.exe")  # no console window at every login
    user = None
    if sys.platform == "win32" and os.environ.get("USERNAME"):
        domain = os.environ.get("USERDOMAIN")
        user = f"{domain}\\{os.environ['USERNAME']}" if domain else os.environ["USERNAME"]
    return Service(
        python=python, home=home, default_home=home == default_home().absolute(), user=user
    )


def _manager(platform: str) -> bool:
    """Whether this session's service manager answers."""
    tool = {"linux": "systemctl", "macos": "launchctl", "windows": "schtasks"}[platform]
    if shutil.which(tool) is None:
        return False
    probe = {
        "linux": ["systemctl", "--user", "show-environment"],
        "macos": ["launchctl", "print", f"gui/{_uid()}"],
        "windows": ["schtasks", "/Query", "/FO", "LIST"],
    }[platform]
    try:
        return subprocess.run(probe, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0


def _start_commands(service: Service, path: Path, platform: str) -> list[list[str]]:
    if platform == "linux":
        return [
            ["systemctl", "--user", "daemon-reload"],
            ["systemctl", "--user", "enable", path.name],
            ["systemctl", "--user", "restart", path.name],  # starts it, or a changed unit
        ]
    if platform == "macos":
        return [["launchctl", "bootstrap", f"gui/{_uid()}", str(path)]]
    return [
        ["schtasks", "/Create", "/XML", str(path), "/TN", service.name, "/F"],
        ["schtasks", "/Run", "/TN", service.name],
    ]


def _stop_commands(service: Service, path: Path, platform: str) -> list[list[str]]:
    if platform == "linux":
        return [["systemctl", "--user", "disable", "--now", path.name]]
    if platform == "macos":
        return [["launchctl", "bootout", f"gui/{_uid()}", str(path)]]
    return [["schtasks", "/Delete", "/TN", service.name, "/F"]]


def _shell(command: list[str]) -> str:
    return " ".join(f'"{w}"' if " " in w else w for w in command)


def _run_all(commands: list[list[str]], tolerate_first: bool = False) -> None:
    for index, command in enumerate(commands):
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if result.returncode != 0 and not (tolerate_first and index == 0):
            raise InputFailure(
                f"{_shell(command)} failed: {result.stderr.strip() or result.returncode}"
            )


def cmd_install(args: argparse.Namespace) -> int:
    platform = autostart.platform_name()
    service = _service()
    try:
        path, changed = autostart.write(service, platform)
    except AutostartError as exc:
        raise InputFailure(f"the service file would not load, nothing was changed: {exc}") from exc
    service.log_file.parent.mkdir(parents=True, exist_ok=True)
    print(f"{'wrote' if changed else 'unchanged'} {path}")
    print(f"  runs: {_shell(service.arguments())}  (COMPANION_HOME={service.home})")
    starts = _start_commands(service, path, platform)
    if platform == "macos":  # launchd keeps the old definition until it is booted out
        starts = [_stop_commands(service, path, platform)[0], *starts]
    if _manager(platform):
        _run_all(starts, tolerate_first=platform == "macos")
        print("started; it starts again at every login and after a failure")
    else:
        print("the service manager is not running here; start it by hand with:")
        for command in starts:
            print(f"  {_shell(command)}")
        here = [*service.arguments(), "--home", str(service.home)]
        print(f"or run the daemon in this terminal: {_shell(here)}")
    if os.environ.get("COMPANION_API_KEY") and not _key_in_config(service):
        print(
            "note: COMPANION_API_KEY is set in this shell only; the service does not see "
            f"it. Put api_key (and base_url) in {service.home / 'config.yaml'} (chmod 600)"
        )
    return 0


def _key_in_config(service: Service) -> bool:
    config = service.home / "config.yaml"
    return config.exists() and "api_key" in config.read_text()


def cmd_uninstall(args: argparse.Namespace) -> int:
    platform = autostart.platform_name()
    service = _service()
    path = autostart.service_file(service, platform)
    if not path.exists():
        print(f"not installed ({path} does not exist)")
        return 0
    stops = _stop_commands(service, path, platform)
    if _manager(platform):
        _run_all(stops, tolerate_first=True)
    path.unlink()
    print(f"removed {path}")
    if platform == "linux" and _manager(platform):
        _run_all([["systemctl", "--user", "daemon-reload"]])
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    platform = autostart.platform_name()
    service = _service()
    path = autostart.service_file(service, platform)
    report: dict[str, object] = {"file": str(path), "home": str(service.home)}
    if not path.exists():
        report["installed"] = False
    else:
        report["installed"] = True
        report["current"] = path.read_bytes() == autostart.render(service, platform)
    report["manager"] = _manager(platform)
    report["daemon"] = _daemon_answers(service.home)
    if args.json:
        print(json.dumps(report))
        return 0
    if not report["installed"]:
        print(f"not installed for {service.home}; install it with: companion service install")
    elif not report["current"]:
        print(
            f"installed at {path}, but for another interpreter or an older companion; "
            "update it with: companion service install"
        )
    else:
        print(f"installed at {path}")
    if not report["manager"]:
        print("the service manager is not running in this session")
    print(f"daemon: {report['daemon'] or 'not answering'}")
    return 0


def _daemon_answers(home: Path) -> str | None:
    """The daemon's version when it answers on loopback (never through a proxy)."""
    from companion.cli.daemon_link import call, daemon_info
    from companion.cli.errors import NotRunning

    try:
        info = daemon_info(home)
        status, body = call(home, "GET", "/api/v1/health")
    except NotRunning:
        return None
    if status != 200 or not isinstance(body, dict):
        return None
    return f"{body.get('version')} on http://127.0.0.1:{info['port']} (pid {info.get('pid')})"
