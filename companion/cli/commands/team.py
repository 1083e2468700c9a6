"""`companion team ...`: the team's shared state in PostgreSQL (team mode)."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from companion.cli.errors import InputFailure, UsageError
from companion.cli.session import settings as load_settings
from companion.settings.config import Settings
from companion.store import Store
from companion.store.errors import TeamUnavailable

OFF = (
    "team mode is off: set team.database in config.yaml or COMPANION_TEAM_DATABASE "
    "to a PostgreSQL connection string (see docs/team.md)"
)


def _team_settings() -> Settings:
    settings = load_settings()
    if settings.team_database is None:
        raise UsageError(OFF)
    return settings


def _with_team(action: Any) -> Any:
    from companion.store.team import PostgresAccount

    settings = _team_settings()
    assert settings.team_database is not None
    store = Store(settings.database)

    async def main() -> Any:
        account = PostgresAccount(
            settings.team_database.get_secret_value() if settings.team_database else "",
            store=store,
            service=settings.base_url or "",
            member=settings.team_member,
            lease=settings.team_lease_seconds,
            pooled=settings.team_pooled,
        )
        await account.open(join=False)  # looking is not taking part
        try:
            return await action(account)
        finally:
            await account.close()

    try:
        return asyncio.run(main())
    except TeamUnavailable as exc:
        raise InputFailure(str(exc)) from exc
    finally:
        store.close()


def render(status: dict[str, Any]) -> str:
    """The status as a few lines of text."""
    slots, window, budget = status["slots"], status["window"], status["budget"]
    lines = [
        f"team database: {status['database']}   this member: {status['member']}",
        f"slots at the service: {slots['in_use']} of {slots['total'] or '?'} in use, "
        f"{slots['waiting']} waiting",
        f"window ({window['seconds'] or 60:g} s): {window['creates']} of "
        f"{window['creates_limit'] or '?'} creates, {window['others']} of "
        f"{window['others_limit'] or '?'} other requests"
        + (f"; on hold for {window['hold_seconds']:g} s (429)" if window["hold_seconds"] else ""),
        f"spent today: {budget['spent_today']} credits"
        + (f" of the team's {budget['per_day']} per day" if budget["per_day"] is not None else "")
        + (f", {budget['per_month']} per month" if budget["per_month"] is not None else ""),
        "drift at the last reconcile: "
        + ("never reconciled" if status["drift"] is None else f"{status['drift']} credits"),
        "members seen recently:",
    ]
    for m in status["members"]:
        lines.append(
            f"  {m['name']:<32} seen {m['seen_seconds_ago']:>6.1f} s ago  "
            f"slots {m['slots']}  spent today {m['spent_today']}"
        )
    if not status["members"]:
        lines.append("  (none)")
    return "\n".join(lines)


def cmd_status(args: argparse.Namespace) -> int:
    status = _with_team(lambda account: account.status())
    print(json.dumps(status, indent=2) if args.json else render(status))
    return 0


def cmd_budget(args: argparse.Namespace) -> int:
    scope = args.member or "*"

    async def action(account: Any) -> None:
        await account.set_budget(scope, args.per_day, args.per_month)

    _with_team(action)
    who = "the team" if scope == "*" else scope
    print(
        f"budget of {who}: per day {args.per_day if args.per_day is not None else 'none'}, "
        f"per month {args.per_month if args.per_month is not None else 'none'}"
    )
    return 0
