"""Settings: one YAML file plus environment overrides, parsed into one model.

COMPANION_HOME relocates every file the companion writes (default: the platform's user
data folder). The config file is COMPANION_HOME/config.yaml; COMPANION_BASE_URL and
COMPANION_API_KEY override it. The companion never writes a key anywhere; keep it in the
environment, or in the config file readable only by you."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import platformdirs
import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError


class ConfigError(Exception):
    """The config file is unreadable or invalid; the message says where and how."""


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str | None = Field(default=None, description="service address including /v1")
    api_key: SecretStr | None = None
    home: Path
    timeout_seconds: float = Field(default=900, gt=0)
    projects: list[dict[str, Any]] = Field(default_factory=list)
    budget_per_job: int | None = Field(default=None, ge=0)
    budget_per_day: int | None = Field(default=None, ge=0)

    @property
    def uses_sandbox(self) -> bool:
        return self.api_key is None

    @property
    def config_file(self) -> Path:
        return self.home / "config.yaml"

    @property
    def database(self) -> Path:
        return self.home / "companion.db"


def default_home() -> Path:
    return Path(platformdirs.user_data_dir("companion", appauthor=False))


def load_settings(environ: dict[str, str] | None = None) -> Settings:
    env = dict(os.environ if environ is None else environ)
    home = Path(env.get("COMPANION_HOME") or default_home()).expanduser()
    values: dict[str, Any] = {}
    path = home / "config.yaml"
    if path.exists():
        try:
            loaded = yaml.safe_load(path.read_text()) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML ({exc})") from exc
        if not isinstance(loaded, dict):
            raise ConfigError(f"{path}: expected a mapping of settings")
        if "api_key" in loaded and path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ConfigError(
                f"{path} holds an API key and others can read it; run: chmod 600 {path}"
            )
        values.update(
            {k: v for k, v in loaded.items() if k in {"base_url", "api_key", "timeout_seconds"}}
        )
        projects = loaded.get("projects") or []
        if not isinstance(projects, list) or not all(
            isinstance(p, dict) and "root" in p for p in projects
        ):
            raise ConfigError(f"{path}: projects must be a list of mappings with a root")
        values["projects"] = projects
        budgets = loaded.get("budgets") or {}
        if not isinstance(budgets, dict):
            raise ConfigError(f"{path}: budgets must be a mapping with per_job and per_day")
        values["budget_per_job"] = budgets.get("per_job")
        values["budget_per_day"] = budgets.get("per_day")
        unknown = set(loaded) - {
            "base_url",
            "api_key",
            "timeout_seconds",
            "projects",
            "budgets",
            "daemon",
        }
        if unknown:
            raise ConfigError(f"{path}: unknown setting {sorted(unknown)[0]!r}")
    if env.get("COMPANION_BASE_URL"):
        values["base_url"] = env["COMPANION_BASE_URL"]
    if env.get("COMPANION_API_KEY"):
        values["api_key"] = env["COMPANION_API_KEY"]
    try:
        return Settings(home=home, **values)
    except ValidationError as exc:
        error = exc.errors()[0]
        raise ConfigError(f"{path}: {'.'.join(map(str, error['loc']))}: {error['msg']}") from exc
