"""The daemon started at login, the platform's way: a systemd user unit (Linux), a
LaunchAgent (macOS), a Task Scheduler task (Windows).

Each file runs this interpreter with `-m companion serve` for one COMPANION_HOME, and
asks the service manager to start it again when it fails. One file per home: the default
home is `companion`, any other gets a name of its own, so two homes never share one.
The key is never written into a file here: the daemon reads it from config.yaml (mode
0600) like every other command.

This module only renders, places and checks files; asking the service manager to load
them is the command's business (companion/cli/commands/login_service.py)."""

from __future__ import annotations

import hashlib
import os
import plistlib
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from companion.daemon.errors import AutostartError

LABEL = "companion"
TASK_NAMESPACE = "http://schemas.microsoft.com/windows/2004/02/mit/task"
RESTART_SECONDS = 10


def platform_name(value: str | None = None) -> str:
    """linux, macos or windows, as this machine (or the given sys.platform) is."""
    value = value or sys.platform
    if value.startswith("win"):
        return "windows"
    if value == "darwin":
        return "macos"
    return "linux"


@dataclass(frozen=True)
class Service:
    """What runs at login: an interpreter and a COMPANION_HOME."""

    python: Path
    home: Path
    default_home: bool
    user: str | None = None  # Windows: DOMAIN\\user, whose logon starts the task

    @property
    def name(self) -> str:
        if self.default_home:
            return LABEL
        digest = hashlib.sha256(str(self.home).encode()).hexdigest()[:8]
        return f"{LABEL}-{digest}"

    @property
    def log_file(self) -> Path:
        return self.home / "logs" / "daemon.log"

    def arguments(self) -> list[str]:
        return [str(self.python), "-m", "companion", "serve"]


# -- Linux: a systemd user unit ------------------------------------------------------------


def unit_path(service: Service, environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    config = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME", "~")) / ".config")
    return config.expanduser() / "systemd" / "user" / f"{service.name}.service"


def _unit_quote(text: str, command: bool) -> str:
    """One word of a unit file: quoted, with specifiers (and, in a command line,
    variable references) taken literally."""
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    if command:
        text = text.replace("$", "$$")
    return f'"{text}"'


def render_unit(service: Service) -> str:
    command = " ".join(_unit_quote(word, True) for word in service.arguments())
    home = _unit_quote(f"COMPANION_HOME={service.home}", False)
    return (
        "# Written by `companion service install`; `companion service uninstall` removes it.\n"
        "[Unit]\n"
        f"Description=companion daemon for editor plugins ({_one_line(str(service.home))})\n"
        # A loop of failures stops after five in five minutes instead of spinning.
        "StartLimitIntervalSec=300\n"
        "StartLimitBurst=5\n"
        "\n"
        "[Service]\n"
        "Type=exec\n"
        f"ExecStart={command}\n"
        f"Environment={home}\n"
        "Environment=PYTHONUNBUFFERED=1\n"
        "Restart=on-failure\n"
        f"RestartSec={RESTART_SECONDS}\n"
        # SIGTERM stops the daemon between steps; every job resumes from its record.
        "TimeoutStopSec=30\n"
        "\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )


def _one_line(text: str) -> str:
    return text.replace("\n", " ").replace("%", "%%")


def verify_unit(path: Path) -> None:
    """systemd's own check when it is installed (it needs no running systemd), and in
    any case the keys the daemon depends on."""
    text = path.read_text()
    for needed in ("[Service]", "ExecStart=", "Restart=on-failure", "WantedBy=default.target"):
        if needed not in text:
            raise AutostartError(f"{path}: {needed} is missing")
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        return
    # verify exits 0 after mere warnings (an unknown key, a bad value); any word on
    # stderr is a mistake in the file.
    result = subprocess.run(
        [analyze, "verify", str(path)], capture_output=True, text=True, timeout=60
    )
    complaints = [line for line in result.stderr.splitlines() if str(path) in line]
    if result.returncode != 0 or complaints:
        raise AutostartError(
            f"systemd-analyze verify {path}: "
            + ("; ".join(complaints) or result.stderr.strip() or f"exit {result.returncode}")
        )


# -- macOS: a LaunchAgent -------------------------------------------------------------------


def plist_path(service: Service, environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME", "~")).expanduser()
    return home / "Library" / "LaunchAgents" / f"{agent_label(service)}.plist"


def agent_label(service: Service) -> str:
    return f"dev.{service.name}.daemon"


def render_plist(service: Service) -> bytes:
    agent = {
        "Label": agent_label(service),
        "ProgramArguments": service.arguments(),
        "EnvironmentVariables": {"COMPANION_HOME": str(service.home), "PYTHONUNBUFFERED": "1"},
        "RunAtLoad": True,
        # Started again when it exits with a failure, not after a clean stop.
        "KeepAlive": {"SuccessfulExit": False},
        "ThrottleInterval": RESTART_SECONDS,
        "ProcessType": "Background",
        "StandardOutPath": str(service.log_file),
        "StandardErrorPath": str(service.log_file),
    }
    return plistlib.dumps(agent, fmt=plistlib.FMT_XML)


def verify_plist(path: Path) -> None:
    try:
        agent = plistlib.loads(path.read_bytes())
    except Exception as exc:  # plistlib raises several kinds for a broken file
        raise AutostartError(f"{path}: not a property list ({exc})") from exc
    for key, kind in (("Label", str), ("ProgramArguments", list), ("KeepAlive", dict)):
        if not isinstance(agent.get(key), kind):
            raise AutostartError(f"{path}: {key} is missing or not a {kind.__name__}")


# -- Windows: a Task Scheduler task ---------------------------------------------------------


def task_path(service: Service) -> Path:
    """Kept beside the daemon's files; `schtasks /Create /XML` registers it."""
    return service.home / "service" / f"{service.name}.xml"


def task_arguments(service: Service) -> str:
    # A task has no environment of its own: the home rides on the command line.
    return f'-m companion serve --home "{service.home}"'


def render_task(service: Service) -> bytes:
    command = escape(str(service.python))
    arguments = escape(task_arguments(service), {'"': "&quot;"})
    # Naming the user keeps the task theirs: a logon trigger for any user needs an
    # administrator to register it.
    user = f"      <UserId>{escape(service.user)}</UserId>\n" if service.user else ""
    text = (
        '<?xml version="1.0" encoding="UTF-16"?>\n'
        f'<Task version="1.2" xmlns="{TASK_NAMESPACE}">\n'
        "  <RegistrationInfo>\n"
        f"    <Description>companion daemon for editor plugins ({escape(str(service.home))})"
        "</Description>\n"
        f"    <URI>\\{service.name}</URI>\n"
        "  </RegistrationInfo>\n"
        "  <Triggers>\n"
        "    <LogonTrigger>\n"
        "      <Enabled>true</Enabled>\n"
        f"{user}"
        "    </LogonTrigger>\n"
        "  </Triggers>\n"
        "  <Principals>\n"
        '    <Principal id="Author">\n'
        f"{user}"
        "      <LogonType>InteractiveToken</LogonType>\n"
        "      <RunLevel>LeastPrivilege</RunLevel>\n"
        "    </Principal>\n"
        "  </Principals>\n"
        "  <Settings>\n"
        "    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>\n"
        "    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>\n"
        "    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>\n"
        "    <StartWhenAvailable>true</StartWhenAvailable>\n"
        "    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>\n"
        "    <RestartOnFailure>\n"
        "      <Interval>PT1M</Interval>\n"
        "      <Count>999</Count>\n"
        "    </RestartOnFailure>\n"
        "    <Enabled>true</Enabled>\n"
        "  </Settings>\n"
        '  <Actions Context="Author">\n'
        "    <Exec>\n"
        f"      <Command>{command}</Command>\n"
        f"      <Arguments>{arguments}</Arguments>\n"
        "    </Exec>\n"
        "  </Actions>\n"
        "</Task>\n"
    )
    return text.encode("utf-16")  # with its byte-order mark, as schtasks reads it


def verify_task(path: Path) -> None:
    """The elements the task schema requires, and those the daemon depends on."""
    try:
        root = ET.fromstring(path.read_bytes())  # noqa: S314 (the file we just wrote)
    except ET.ParseError as exc:
        raise AutostartError(f"{path}: not well-formed XML ({exc})") from exc
    ns = {"t": TASK_NAMESPACE}
    if root.tag != f"{{{TASK_NAMESPACE}}}Task" or not root.get("version"):
        raise AutostartError(f"{path}: the root must be a versioned Task in {TASK_NAMESPACE}")
    for needed in (
        "t:Actions/t:Exec/t:Command",
        "t:Triggers/t:LogonTrigger",
        "t:Settings/t:RestartOnFailure/t:Interval",
        "t:Settings/t:RestartOnFailure/t:Count",
    ):
        if root.find(needed, ns) is None or not (root.findtext(needed, None, ns) or "x"):
            raise AutostartError(f"{path}: {needed.replace('t:', '')} is missing")


# -- one face for the command --------------------------------------------------------------


def service_file(service: Service, platform: str) -> Path:
    if platform == "windows":
        return task_path(service)
    if platform == "macos":
        return plist_path(service)
    return unit_path(service)


def render(service: Service, platform: str) -> bytes:
    if platform == "windows":
        return render_task(service)
    if platform == "macos":
        return render_plist(service)
    return render_unit(service).encode()


def verify(path: Path, platform: str) -> None:
    if platform == "windows":
        verify_task(path)
    elif platform == "macos":
        verify_plist(path)
    else:
        verify_unit(path)


def write(service: Service, platform: str) -> tuple[Path, bool]:
    """Write the file (temporary name, checked, then renamed into place); True when it
    changed. A file that would not load never replaces a working one."""
    path = service_file(service, platform)
    content = render(service, platform)
    if path.exists() and path.read_bytes() == content:
        return path, False
    path.parent.mkdir(parents=True, exist_ok=True)
    # The checked copy keeps the real suffix (systemd judges a unit by its name).
    temporary = path.parent / f".{path.stem}.new{path.suffix}"
    temporary.write_bytes(content)
    try:
        verify(temporary, platform)
    except AutostartError as exc:
        temporary.unlink(missing_ok=True)
        raise AutostartError(str(exc).replace(str(temporary), str(path))) from exc
    temporary.replace(path)
    return path, True
