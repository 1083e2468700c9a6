"""Team mode's settings, `companion team status|budget` and the daemon's team route,
against a real PostgreSQL server."""

from __future__ import annotations

# ruff: noqa: F811  (the cluster fixtures are imported by name)
import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.sandbox import SandboxThread
from companion.settings.config import load_settings
from companion.settings.errors import ConfigError
from companion.store import Store
from companion.store.team import PostgresAccount, describe
from tests.conftest import TEST_KEY
from tests.support.daemon import DaemonThread, call
from tests.support.paths import REPO
from tests.support.real_postgres import real_postgres, team_db  # noqa: F401

ROOT = REPO


def companion(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COMPANION_HOME": str(home), **env},
    )


def test_team_settings_from_the_file_and_the_environment(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("team:\n  database: postgresql://db.studio.lan/companion\n")
    settings = load_settings({"COMPANION_HOME": str(tmp_path)})
    assert settings.team_database is not None and settings.team_member is None
    assert "db.studio.lan" in settings.team_database.get_secret_value()
    settings = load_settings(
        {
            "COMPANION_HOME": str(tmp_path),
            "COMPANION_TEAM_DATABASE": "host=other dbname=team",
            "COMPANION_TEAM_MEMBER": "ana@desk",
        }
    )
    assert settings.team_database is not None
    assert settings.team_database.get_secret_value() == "host=other dbname=team"
    assert settings.team_member == "ana@desk"
    assert load_settings({"COMPANION_HOME": str(tmp_path / "none")}).team_database is None

    config.write_text("team:\n  database: postgresql://db/c\n  colour: blue\n")
    with pytest.raises(ConfigError, match=r"team\.colour"):
        load_settings({"COMPANION_HOME": str(tmp_path)})
    config.write_text("team: postgresql://db/c\n")
    with pytest.raises(ConfigError, match="team must be a mapping with database"):
        load_settings({"COMPANION_HOME": str(tmp_path)})


def test_a_password_in_the_config_needs_a_private_file(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("team:\n  database: postgresql://artist:s3cret@db.studio.lan/companion\n")
    config.chmod(0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        load_settings({"COMPANION_HOME": str(tmp_path)})
    config.chmod(0o600)
    assert load_settings({"COMPANION_HOME": str(tmp_path)}).team_database is not None
    # Messages name the database by place, never with its password.
    shown = describe("postgresql://artist:s3cret@db.studio.lan:6432/companion")
    assert shown == "companion at db.studio.lan:6432" and "s3cret" not in shown


def test_team_commands_say_how_to_turn_team_mode_on(tmp_path: Path) -> None:
    result = companion(tmp_path, "team", "status")
    assert result.returncode == 2
    assert "team mode is off" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.postgres
def test_an_unreachable_team_database_is_one_clear_line(tmp_path: Path) -> None:
    dsn = "postgresql://artist:s3cret@127.0.0.1:1/companion?connect_timeout=1"
    result = companion(tmp_path, "team", "status", COMPANION_TEAM_DATABASE=dsn)
    assert result.returncode == 1
    assert "cannot open companion at 127.0.0.1:1" in result.stderr
    assert "s3cret" not in result.stderr + result.stdout and "Traceback" not in result.stderr


@pytest.mark.postgres
@pytest.mark.slow
def test_team_budget_and_status(team_db: str, tmp_path: Path) -> None:
    env = {"COMPANION_TEAM_DATABASE": team_db}
    assert companion(tmp_path, "team", "budget", "--per-day", "500", **env).returncode == 0

    async def member_spends() -> None:
        store = Store(tmp_path / "member.db")
        async with PostgresAccount(
            team_db, store=store, service="http://sandbox", member="ana@desk"
        ) as ana:
            await ana.reconcile(1000)
            await ana.record("job-1", "hold", 30)
            await ana.settle("job-1", 25, 0, 5)
            await ana.acquire_slot("job-2", 1, present=True)
            await ana.reconcile(975)  # 25 charged, and the balance agrees: no drift
        store.close()

    asyncio.run(member_spends())
    status = companion(tmp_path, "team", "status", "--json", **env)
    assert status.returncode == 0, status.stderr
    shown = json.loads(status.stdout)
    assert shown["budget"] == {"spent_today": 25, "per_day": 500, "per_month": None}
    assert shown["drift"] == 0
    assert [m["name"] for m in shown["members"]] == ["ana@desk"]
    assert shown["members"][0]["spent_today"] == 25
    text = companion(tmp_path, "team", "status", **env).stdout
    assert "ana@desk" in text and "spent today: 25 credits of the team's 500 per day" in text


@pytest.mark.postgres
@pytest.mark.slow
def test_the_daemon_shows_the_team(
    team_db: str, tmp_path: Path, make_sandbox: Callable[..., SandboxThread]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(f'team:\n  database: "{team_db}"\n  member: ben@desk\n')
    sandbox = make_sandbox()
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        team = call(daemon, "GET", "/api/v1/team").json
    finally:
        daemon.stop()
    assert team["team"] is True and team["member"] == "ben@desk"
    assert [m["name"] for m in team["members"]] == ["ben@desk"]
    assert team["slots"]["total"] == 54  # the sandbox's limits in tests: 4 running + 50 queued
