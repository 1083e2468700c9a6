"""Settings: a key never shows, and values read as they are (no pydantic loaded) make
the same settings as values pydantic checks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.settings.config import Secret, load_settings
from companion.settings.errors import ConfigError


def test_a_key_never_shows_where_settings_are_printed(tmp_path: Path) -> None:
    settings = load_settings(
        {"COMPANION_HOME": str(tmp_path), "COMPANION_API_KEY": "sk-very-secret"}
    )
    assert settings.api_key == Secret("sk-very-secret")
    assert settings.api_key is not None
    assert settings.api_key.get_secret_value() == "sk-very-secret"
    for shown in (repr(settings), str(settings), repr(settings.api_key), str(settings.api_key)):
        assert "sk-very-secret" not in shown
    assert str(Secret("")) == ""  # as pydantic's SecretStr: stars only for a value


def test_values_taken_as_they_are_and_checked_values_agree(tmp_path: Path) -> None:
    given = {
        "COMPANION_HOME": str(tmp_path),
        "COMPANION_API_KEY": "sk-1",
        "COMPANION_BASE_URL": "http://127.0.0.1:1/v1",
        "COMPANION_TEAM_DATABASE": "host=db",
        "COMPANION_TEAM_MEMBER": "ann@desk",
    }
    plain = load_settings(given)
    # "8" must be read as a number (pydantic's work): the same settings in the end.
    checked = load_settings({**given, "COMPANION_RETRY_ATTEMPTS": "8"})
    assert plain == checked
    assert checked.retry_attempts == 8 and isinstance(checked.api_key, Secret)
    assert isinstance(checked.team_database, Secret)
    assert checked.team_database.get_secret_value() == "host=db"
    (tmp_path / "config.yaml").write_text("timeout_seconds: 0\n")
    with pytest.raises(ConfigError, match="timeout_seconds: Input should be greater than 0"):
        load_settings(given)


def test_reading_plain_settings_loads_neither_pydantic_nor_yaml(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from companion.settings.config import load_settings\n"
        f"load_settings({{'COMPANION_HOME': {str(tmp_path)!r}, 'COMPANION_API_KEY': 'k'}})\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'yaml')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "[]", result.stderr
