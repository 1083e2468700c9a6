"""Settings: one YAML file plus environment overrides, parsed into one model.

COMPANION_HOME relocates every file the companion writes (default: the platform's user
data folder). The config file is COMPANION_HOME/config.yaml; COMPANION_BASE_URL and
COMPANION_API_KEY override it. `team:` (database, member, lease_seconds, pooled) or
COMPANION_TEAM_DATABASE / COMPANION_TEAM_MEMBER turn on team mode: the account's
windows, slots, budgets, ledger and uploads are shared through that PostgreSQL database.
The companion never writes a key anywhere; keep it in the environment, or in the config
file readable only by you."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from annotated_types import Ge, Gt, Le

from companion.settings.errors import ConfigError

if TYPE_CHECKING:
    from pydantic import TypeAdapter


class Secret:
    """A key or a password: shown as stars wherever it is printed or logged; only
    get_secret_value() gives it (as pydantic's SecretStr, without loading pydantic)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __str__(self) -> str:
        return "**********" if self._value else ""

    def __repr__(self) -> str:
        return f"Secret('{self}')"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(cls, core_schema.str_schema())


@dataclass(kw_only=True)
class Settings:
    """The settings, checked by pydantic against these annotations (see load_settings).
    A plain dataclass, so a command that only reads them does not load pydantic."""

    base_url: str | None = None  # the service's address, including /v1
    api_key: Secret | None = None
    home: Path
    timeout_seconds: Annotated[float, Gt(0)] = 900
    projects: list[dict[str, Any]] = field(default_factory=list)
    budget_per_job: Annotated[int, Ge(0)] | None = None
    budget_per_day: Annotated[int, Ge(0)] | None = None
    budget_per_month: Annotated[int, Ge(0)] | None = None
    # How far over its quote a task may be priced when it is created and still be made
    # (0: not at all; over it the task is cancelled at once).
    price_margin_percent: Annotated[float, Ge(0), Le(1000)] = 0
    team_database: Secret | None = None  # the team's PostgreSQL connection string
    team_member: str | None = None  # this companion's name (user@host)
    team_lease_seconds: Annotated[float, Gt(0), Le(3600)] = 60.0
    team_pooled: bool = False  # the team database is reached through a pooling PgBouncer
    # A folder every member reaches (team.clips): paid clips are shared there, so a
    # teammate's identical generation spends nothing.
    team_clips: Path | None = None
    # Tries of one call to the service before it is given up (1: no retry).
    retry_attempts: Annotated[int, Ge(1), Le(20)] = 8
    # Room for kept paid videos (free re-cuts), oldest out; unset: every clip is kept
    # (they are paid assets, never dropped unasked).
    clip_store_mb: Annotated[int, Ge(0)] | None = None
    # What a coding agent may spend through `companion mcp` without asking the user
    # (config.yaml's agents:); all three unset: every paid call asks.
    agent_per_call: Annotated[int, Ge(0)] | None = None
    agent_per_session: Annotated[int, Ge(0)] | None = None
    agent_per_day: Annotated[int, Ge(0)] | None = None
    # No paid call from an agent at all (agents.no_spend, or COMPANION_NO_SPEND=1).
    agent_no_spend: bool = False

    @property
    def uses_sandbox(self) -> bool:
        return self.api_key is None

    @property
    def config_file(self) -> Path:
        return self.home / "config.yaml"

    @property
    def database(self) -> Path:
        return self.home / "companion.db"

    @property
    def clip_folder(self) -> Path:
        return self.home / "clips"

    @property
    def clip_cap_bytes(self) -> int | None:
        """The clip store's size cap the user set, in bytes (None: no cap)."""
        return None if self.clip_store_mb is None else self.clip_store_mb * 2**20


# Settings any string is a valid value of, and those None is the default of: values of
# only these kinds need no check, and pydantic is loaded only for the others.
TEXT = {"base_url", "api_key", "team_database", "team_member"}
SECRET = {"api_key", "team_database"}
UNSET = {
    "base_url",
    "api_key",
    "budget_per_job",
    "budget_per_day",
    "budget_per_month",
    "team_database",
    "team_member",
    "team_clips",
    "clip_store_mb",
    "agent_per_call",
    "agent_per_session",
    "agent_per_day",
}


@cache
def _checks() -> TypeAdapter[Settings]:
    from pydantic import TypeAdapter

    return TypeAdapter(Settings)


def _as_they_are(values: dict[str, Any]) -> bool:
    """Whether every value is valid as it is: a string where any string is, None where
    None is the default, no projects."""
    return all(
        (key in TEXT and isinstance(value, str))
        or (key in UNSET and value is None)
        or (key == "projects" and value == [])
        for key, value in values.items()
    )


# The config file's settings taken as they are written.
PLAIN = {
    "base_url",
    "api_key",
    "timeout_seconds",
    "clip_store_mb",
    "retry_attempts",
    "price_margin_percent",
}
# The settings an environment value COMPANION_<NAME> gives, over the config file's.
ENVIRONMENT = (
    "base_url",
    "api_key",
    "team_database",
    "clip_store_mb",
    "retry_attempts",
    "team_member",
    "team_pooled",
)


def default_home() -> Path:
    import platformdirs  # only where COMPANION_HOME does not say

    return Path(platformdirs.user_data_dir("companion", appauthor=False))


def load_settings(environ: dict[str, str] | None = None) -> Settings:
    env = dict(os.environ if environ is None else environ)
    home = Path(env.get("COMPANION_HOME") or default_home()).expanduser()
    values: dict[str, Any] = {}
    path = home / "config.yaml"
    if path.exists():
        import yaml

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
        if _team_password(loaded.get("team")) and path.stat().st_mode & (
            stat.S_IRWXG | stat.S_IRWXO
        ):
            raise ConfigError(
                f"{path} holds the team database's password and others can read it; "
                f"run: chmod 600 {path} (or use ~/.pgpass, or COMPANION_TEAM_DATABASE)"
            )
        values.update({k: v for k, v in loaded.items() if k in PLAIN})
        projects = loaded.get("projects") or []
        if not isinstance(projects, list) or not all(
            isinstance(p, dict) and "root" in p for p in projects
        ):
            raise ConfigError(f"{path}: projects must be a list of mappings with a root")
        values["projects"] = projects
        budgets = loaded.get("budgets") or {}
        if not isinstance(budgets, dict):
            raise ConfigError(
                f"{path}: budgets must be a mapping with per_job, per_day and per_month"
            )
        values["budget_per_job"] = budgets.get("per_job")
        values["budget_per_day"] = budgets.get("per_day")
        values["budget_per_month"] = budgets.get("per_month")
        values.update(_team(path, loaded.get("team")))
        values.update(_agents(path, loaded.get("agents")))
        unknown = set(loaded) - PLAIN - {"projects", "budgets", "daemon", "team", "agents"}
        if unknown:
            raise ConfigError(f"{path}: unknown setting {sorted(unknown)[0]!r}")
    for setting in ENVIRONMENT:
        if env.get(f"COMPANION_{setting.upper()}"):
            values[setting] = env[f"COMPANION_{setting.upper()}"]
    if env.get("COMPANION_NO_SPEND", "").strip() not in ("", "0"):
        values["agent_no_spend"] = True
    if _as_they_are(values):
        given: dict[str, Any] = {
            k: Secret(v) if k in SECRET and v is not None else v for k, v in values.items()
        }
        return Settings(home=home, **given)
    from pydantic import ValidationError

    try:
        return _checks().validate_python({"home": home, **values})
    except ValidationError as exc:
        error = exc.errors()[0]
        raise ConfigError(f"{path}: {'.'.join(map(str, error['loc']))}: {error['msg']}") from exc


def _team(path: Path, team: Any) -> dict[str, Any]:
    if team is None:
        return {}
    if not isinstance(team, dict) or not isinstance(team.get("database"), str):
        raise ConfigError(
            f"{path}: team must be a mapping with database (a PostgreSQL connection string, "
            "e.g. postgresql://companion@db.studio.lan/companion) and optionally member"
        )
    unknown = set(team) - {"database", "member", "lease_seconds", "pooled", "clips"}
    if unknown:
        raise ConfigError(f"{path}: unknown setting team.{sorted(unknown)[0]}")
    values: dict[str, Any] = {"team_database": team["database"]}
    if team.get("member") is not None:
        values["team_member"] = str(team["member"])
    if team.get("lease_seconds") is not None:
        values["team_lease_seconds"] = team["lease_seconds"]
    if team.get("pooled") is not None:
        values["team_pooled"] = team["pooled"]
    if team.get("clips") is not None:
        values["team_clips"] = Path(str(team["clips"])).expanduser()
    return values


def _agents(path: Path, agents: Any) -> dict[str, Any]:
    """agents: per_call, per_session, per_day (credits an agent spends unasked) and
    no_spend (refuse every paid call from an agent)."""
    if agents is None:
        return {}
    if not isinstance(agents, dict):
        raise ConfigError(
            f"{path}: agents must be a mapping with per_call, per_session, per_day, no_spend"
        )
    unknown = set(agents) - {"per_call", "per_session", "per_day", "no_spend"}
    if unknown:
        raise ConfigError(f"{path}: unknown setting agents.{sorted(unknown)[0]}")
    values = {
        f"agent_{k}": agents[k] for k in ("per_call", "per_session", "per_day") if k in agents
    }
    if agents.get("no_spend") is not None:
        values["agent_no_spend"] = agents["no_spend"]
    return values


def _team_password(team: Any) -> bool:
    if not isinstance(team, dict) or not isinstance(team.get("database"), str):
        return False
    from psycopg.conninfo import conninfo_to_dict
    from psycopg.errors import ProgrammingError

    try:
        return bool(conninfo_to_dict(team["database"]).get("password"))
    except ProgrammingError:
        return False
