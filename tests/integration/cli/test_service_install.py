"""`companion service`: the login service files, checked by readers that are not ours
(systemd-analyze, plistlib, an XML parser against the task schema's required elements)."""

from __future__ import annotations

import json
import os
import plistlib
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from companion.daemon import autostart
from companion.daemon.autostart import TASK_NAMESPACE, Service
from companion.daemon.errors import AutostartError


def service_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env.update(
        HOME=str(tmp_path / "user"),
        XDG_CONFIG_HOME=str(tmp_path / "user" / "config"),
        COMPANION_HOME=str(tmp_path / "home with space %h"),
        PATH=str(tmp_path / "bin") + os.pathsep + env.get("PATH", ""),
    )
    (tmp_path / "bin").mkdir(exist_ok=True)
    # A session whose user manager is down, as in a container; never the real one, which
    # on a desktop would start a service for real.
    systemctl = tmp_path / "bin" / "systemctl"
    systemctl.write_text("#!/bin/sh\necho 'Failed to connect to bus' >&2\nexit 1\n")
    systemctl.chmod(0o755)
    return env


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", "service", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def analyze_available() -> bool:
    if shutil.which("systemd-analyze"):
        return True
    if os.environ.get("CI") == "true":
        pytest.fail("CI must provide systemd-analyze (Debian's systemd package, .ci/run)")
    return False


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="a systemd unit is for Linux")
def test_install_writes_a_unit_systemd_accepts(tmp_path: Path) -> None:
    env = service_env(tmp_path)
    result = run(env, "install")
    assert result.returncode == 0, result.stderr
    units = list((tmp_path / "user" / "config" / "systemd" / "user").glob("companion*.service"))
    assert len(units) == 1, units
    unit = units[0]
    text = unit.read_text()
    assert "the service manager is not running" in result.stdout
    assert f"systemctl --user enable {unit.name}" in result.stdout
    home = tmp_path / "home with space %h"
    # The home's % is no systemd specifier and its space no word break.
    assert f'Environment="COMPANION_HOME={str(home).replace("%", "%%")}"' in text
    assert f'ExecStart="{sys.executable}" "-m" "companion" "serve"' in text
    assert "Restart=on-failure" in text
    if analyze_available():
        verified = subprocess.run(
            ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True
        )
        assert verified.returncode == 0 and str(unit) not in verified.stderr, verified.stderr
    again = run(env, "install")
    assert again.returncode == 0 and again.stdout.startswith("unchanged"), again.stdout
    status = run(env, "status", "--json")
    report = json.loads(status.stdout)
    assert report["installed"] and report["current"] and report["daemon"] is None
    assert run(env, "uninstall").returncode == 0
    assert not unit.exists()
    assert json.loads(run(env, "status", "--json").stdout)["installed"] is False


def test_a_unit_systemd_refuses_never_replaces_the_working_one(tmp_path: Path) -> None:
    if not analyze_available():
        pytest.skip("systemd-analyze is not installed")
    service = Service(python=tmp_path / "no-such-python", home=tmp_path, default_home=False)
    path = autostart.unit_path(service, {"XDG_CONFIG_HOME": str(tmp_path / "config")})
    path.parent.mkdir(parents=True)
    path.write_text("kept")
    with pytest.raises(AutostartError, match="no-such-python"):
        autostart.verify_unit(_written(tmp_path, autostart.render_unit(service)))
    assert path.read_text() == "kept"


def _written(folder: Path, text: str) -> Path:
    path = folder / "check.service"
    path.write_text(text)
    return path


def test_launch_agent_loads_with_plistlib(tmp_path: Path) -> None:
    home = tmp_path / "studio & co"
    service = Service(python=Path("/opt/py/bin/python3"), home=home, default_home=False)
    path = tmp_path / "agent.plist"
    path.write_bytes(autostart.render_plist(service))
    agent = plistlib.loads(path.read_bytes())
    assert agent["Label"] == autostart.agent_label(service)
    assert agent["ProgramArguments"] == ["/opt/py/bin/python3", "-m", "companion", "serve"]
    assert agent["EnvironmentVariables"]["COMPANION_HOME"] == str(home)
    assert agent["KeepAlive"] == {"SuccessfulExit": False}  # again after a failure only
    assert agent["RunAtLoad"] is True
    autostart.verify_plist(path)
    path.write_bytes(b"<plist><dict><key>Label</key></dict>")
    with pytest.raises(AutostartError):
        autostart.verify_plist(path)


def test_windows_task_has_the_schema_required_elements(tmp_path: Path) -> None:
    home = tmp_path / 'a "quoted" & <odd> home'
    python = Path("C:/Program Files/Python312/pythonw.exe")
    service = Service(python=python, home=home, default_home=False, user="STUDIO\\ana")
    data = autostart.render_task(service)
    assert data[:2] == b"\xff\xfe"  # UTF-16 with its byte-order mark, as schtasks reads
    root = ET.fromstring(data)
    ns = {"t": TASK_NAMESPACE}
    assert root.tag == f"{{{TASK_NAMESPACE}}}Task" and root.get("version") == "1.2"
    # The schema's one required child is Actions, with an Exec that has a Command.
    assert [child.tag.split("}")[1] for child in root].count("Actions") == 1
    assert root.findtext("t:Actions/t:Exec/t:Command", None, ns) == str(python)
    arguments = root.findtext("t:Actions/t:Exec/t:Arguments", None, ns)
    assert arguments == f'-m companion serve --home "{home}"'
    assert root.findtext("t:Triggers/t:LogonTrigger/t:UserId", None, ns) == "STUDIO\\ana"
    assert root.findtext("t:Principals/t:Principal/t:UserId", None, ns) == "STUDIO\\ana"
    assert root.findtext("t:Settings/t:RestartOnFailure/t:Interval", None, ns) == "PT1M"
    assert int(root.findtext("t:Settings/t:RestartOnFailure/t:Count", "0", ns)) > 0
    # Principals and Actions agree on the context the task runs in.
    principal = root.find("t:Principals/t:Principal", ns)
    assert principal is not None
    assert principal.get("id") == root.find("t:Actions", ns).get("Context")  # type: ignore[union-attr]
    path = tmp_path / "task.xml"
    path.write_bytes(data)
    autostart.verify_task(path)
    path.write_bytes(data.decode("utf-16").replace("<Actions", "<Other").encode("utf-16"))
    with pytest.raises(AutostartError):
        autostart.verify_task(path)


def test_serve_takes_its_home_on_the_command_line(tmp_path: Path) -> None:
    """The Windows task names the home with --home: serve reads it before any setting."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    home = tmp_path / "given"
    home.mkdir()
    (home / "config.yaml").write_text("nonsense_key: 1\n")
    result = subprocess.run(
        [sys.executable, "-m", "companion", "serve", "--home", str(home), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 2
    assert str(home / "config.yaml") in result.stderr
