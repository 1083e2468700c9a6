"""The commands that ask the service: credits, account, models, quote, assets, preview,
and team mode's status and budgets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.cli.options import finite
from companion.cli.parsers.base import command, json_flag, verbs


def add_service_commands(commands: Any) -> None:
    credits = command(
        commands,
        "credits",
        "remote",
        help="available credits, and what this machine spent (today, this month, per job)",
    )
    json_flag(credits)
    command(commands, "account", "remote", help="account, tier, key identity and limits")
    models = command(commands, "models", "remote", help="live model capabilities")
    models.add_argument(
        "--raw", action="store_true", help="print the listing exactly as the service sent it"
    )
    quote = command(commands, "quote", "remote", help="price of a video generation")
    quote.add_argument("--seconds", type=finite, metavar="S", help="video length (default 3)")
    quote.add_argument("--model", help="a model of `companion models` (default: the service's)")
    quote.add_argument(
        "--resolution", help="360p, 480p, 720p or 1080p, as the model offers (default: its own)"
    )
    quote.add_argument("--last-frame", action="store_true", help="price it with a last frame")
    quote.add_argument(
        "--refs", type=int, default=0, metavar="N", help="reference images (default 0)"
    )
    quote.add_argument("--transparent", action="store_true", help="price it with a key colour")

    assets = verbs(commands, "assets", help="look up or download an asset")
    get = command(assets, "get", "remote:cmd_asset_get", help="an asset's record (no URL)")
    get.add_argument("asset_id", help="the asset's id")
    download = command(assets, "download", "remote:cmd_asset_download", help="download an asset")
    download.add_argument("asset_id", help="the asset's id")
    download.add_argument("--out", type=Path, required=True, metavar="FILE", help="file to write")

    preview = command(commands, "preview", "remote", help="labelled contact sheet of a video asset")
    preview.add_argument("asset_id", help="a clip_video asset's id")
    preview.add_argument(
        "--at",
        type=finite,
        action="append",
        required=True,
        metavar="S",
        help="a timestamp in seconds; repeat, 1 to 12 of them",
    )
    preview.add_argument(
        "--max-frame-size", type=int, default=256, metavar="PX", help="cell size (default 256)"
    )
    preview.add_argument("--out", type=Path, metavar="FILE", help="also download the sheet here")


def add_team(commands: Any) -> None:
    team = verbs(
        commands,
        "team",
        dest="team_command",
        help="team mode: companions sharing one account through PostgreSQL",
    )
    status = command(
        team,
        "status",
        "team",
        help="members seen recently, slots in use, window use, spend today, drift",
    )
    json_flag(status, "print the status as JSON")
    budget = command(
        team,
        "budget",
        "team",
        help="set the team's budget (or a member's, with --member); a limit left out is removed",
    )
    budget.add_argument("--member", help="a member's name (user@host); default: the team")
    budget.add_argument(
        "--per-day", type=int, metavar="N", help="credits per day (UTC, database clock)"
    )
    budget.add_argument("--per-month", type=int, metavar="N", help="credits per calendar month")
