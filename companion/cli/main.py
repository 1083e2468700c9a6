"""companion: turn still images into game-ready animations.

Exit codes: 0 done; 1 the work failed (an input file, a video, a task, the daemon or
the network); 2 the command line is wrong (nothing was spent); 3 the service refused
(key, credits, limits, or the request); 4 waiting for approval (a budget holds the
job; nothing was spent); 130 interrupted (run the same command again to resume)."""

from __future__ import annotations

import argparse
import importlib
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from companion import CompanionError, __version__
from companion.cli.errors import EXIT_INTERRUPTED, EXIT_USAGE, as_cli_error, fail, say
from companion.cli.options import FAULT_PROFILES, add_export_options, add_generation_options

# Handlers are named, not imported: `companion --help` loads no command's code.
Handler = str | Callable[[argparse.Namespace], int]


class WholeWordsFormatter(argparse.HelpFormatter):
    """Help wrapped between words only: a flag such as --pixel-art is never cut at its
    hyphen."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(
            " ".join(text.split()),
            width,
            initial_indent=indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
        )


class OneLineParser(argparse.ArgumentParser):
    """Option errors in one line, like every other failure, with exit code 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", WholeWordsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        say(f"companion: error: {message} (see: {self.prog} --help)")
        raise SystemExit(EXIT_USAGE)


def _command(commands: Any, name: str, handler: str, **kw: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(name, **kw)
    parser.set_defaults(handler=handler)
    return parser


def _add_export(commands: Any) -> None:
    export = _command(
        commands,
        "export",
        "companion.cli.export:cmd_export",
        help="convert a local video into engine-ready formats (no service, no credits)",
        description="Sample frames from a video and write the formats asked for into "
        "--out. An output never replaces the video itself.",
    )
    export.add_argument("video", type=Path, help="a video file (mp4, webm, mov, ...)")
    add_export_options(export, out_help="folder for the outputs (made if missing)", local=True)


def _add_recut(commands: Any) -> None:
    recut = _command(
        commands,
        "recut",
        "companion.cli.recut:cmd_recut",
        help="export a finished job's kept video again (other frames, size, range, "
        "formats): local, no credits",
        description="The companion keeps each paid video (COMPANION_HOME/clips, up to "
        "clip_store_mb, oldest out first). recut exports it again exactly as "
        "companion export would, named after the job unless --name says otherwise.",
    )
    recut.add_argument("job", help="the job's id or a unique prefix (companion jobs list)")
    add_export_options(recut, out_help="folder for the outputs (made if missing)", local=True)


def _add_animate(commands: Any) -> None:
    animate = _command(
        commands,
        "animate",
        "companion.cli.animate:cmd_animate",
        help="animate an image end to end (one click), resumable",
        description="Checks every option, quotes, creates one task, waits, and installs "
        "the formats asked for into --out. Run the same command again after a crash or "
        "Ctrl-C and it resumes the same job: nothing is paid twice.",
    )
    animate.add_argument("image", type=Path, help="the first frame: PNG, JPEG or WebP")
    add_generation_options(animate)
    animate.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="stop waiting after this many seconds; the task goes on, run again to collect "
        "it (default: timeout_seconds in config.yaml, 900)",
    )
    animate.add_argument(
        "--again",
        action="store_true",
        help="make a new animation even if this same command already made one whose "
        "outputs are still in --out (that is otherwise reported, and nothing is spent)",
    )
    add_export_options(animate, out_help="folder for the outputs (made if missing)")

    demo = _command(
        commands,
        "demo",
        "companion.cli.animate:cmd_demo",
        help="draw a character and animate it into every format (the first thing to try)",
    )
    demo.add_argument(
        "--out",
        type=Path,
        default=Path("out/demo"),
        metavar="FOLDER",
        help="folder for hero.png and animation/ (default out/demo)",
    )


def _add_service_commands(commands: Any) -> None:
    credits = _command(
        commands,
        "credits",
        "companion.cli.remote:cmd_credits",
        help="available credits, and what this machine spent (today, this month, per job)",
    )
    credits.add_argument("--json", action="store_true", help="print one JSON object")
    _command(
        commands,
        "account",
        "companion.cli.remote:cmd_account",
        help="account, tier, key identity and limits",
    )
    _command(commands, "models", "companion.cli.remote:cmd_models", help="live model capabilities")
    quote = _command(
        commands, "quote", "companion.cli.remote:cmd_quote", help="price of a video generation"
    )
    quote.add_argument("--seconds", type=float, metavar="S", help="video length (default 3)")
    quote.add_argument(
        "--resolution", help="360p, 480p, 720p or 1080p, as the model offers (default: its own)"
    )
    quote.add_argument("--last-frame", action="store_true", help="price it with a last frame")
    quote.add_argument(
        "--refs", type=int, default=0, metavar="N", help="reference images (default 0)"
    )
    quote.add_argument("--transparent", action="store_true", help="price it with a key colour")

    assets = commands.add_parser("assets", help="look up or download an asset")
    verbs = assets.add_subparsers(dest="verb", required=True, metavar="VERB")
    get = _command(
        verbs, "get", "companion.cli.remote:cmd_asset_get", help="an asset's record (no URL)"
    )
    get.add_argument("asset_id", help="the asset's id")
    download = _command(
        verbs, "download", "companion.cli.remote:cmd_asset_download", help="download an asset"
    )
    download.add_argument("asset_id", help="the asset's id")
    download.add_argument("--out", type=Path, required=True, metavar="FILE", help="file to write")

    preview = _command(
        commands,
        "preview",
        "companion.cli.remote:cmd_preview",
        help="labelled contact sheet of a video asset",
    )
    preview.add_argument("asset_id", help="a clip_video asset's id")
    preview.add_argument(
        "--at",
        type=float,
        action="append",
        required=True,
        metavar="S",
        help="a timestamp in seconds; repeat, 1 to 12 of them",
    )
    preview.add_argument(
        "--max-frame-size", type=int, default=256, metavar="PX", help="cell size (default 256)"
    )
    preview.add_argument("--out", type=Path, metavar="FILE", help="also download the sheet here")


def _add_jobs(commands: Any) -> None:
    jobs = commands.add_parser("jobs", help="the local job queue: add, run, list, show, control")
    verbs = jobs.add_subparsers(dest="verb", required=True, metavar="VERB")
    add = _command(
        verbs,
        "add",
        "companion.cli.jobs:cmd_add",
        help="queue a one-click animation for a project folder",
    )
    add.add_argument("image", type=Path, help="the first frame: PNG, JPEG or WebP")
    add_generation_options(add)
    add.add_argument(
        "--target", type=Path, required=True, metavar="FOLDER", help="folder the outputs go into"
    )
    add.add_argument(
        "--priority",
        choices=["editor", "folder"],
        default="folder",
        help="editor jobs run before folder batches (default folder)",
    )
    add_export_options(add, out_help=None)
    _command(
        verbs,
        "run",
        "companion.cli.jobs:cmd_run",
        help="run every unfinished job (resumes after a crash)",
    )
    _command(verbs, "list", "companion.cli.jobs:cmd_list", help="every job and its state")
    for verb, text, handler in (
        ("show", "a job, its ledger and outputs", "cmd_show"),
        ("cancel", "cancel a job (remotely too)", "cmd_control"),
        ("retry", "retry a job that never reached the service", "cmd_control"),
        ("approve", "approve a job held by a budget", "cmd_control"),
    ):
        parser = _command(verbs, verb, f"companion.cli.jobs:{handler}", help=text)
        parser.add_argument("job", help="a job id or its first characters")


def _add_team(commands: Any) -> None:
    team = commands.add_parser(
        "team", help="team mode: companions sharing one account through PostgreSQL"
    )
    verbs = team.add_subparsers(dest="team_command", required=True, metavar="VERB")
    status = _command(
        verbs,
        "status",
        "companion.cli.team:cmd_status",
        help="members seen recently, slots in use, window use, spend today, drift",
    )
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    budget = _command(
        verbs,
        "budget",
        "companion.cli.team:cmd_budget",
        help="set the team's budget (or a member's, with --member); a limit left out is removed",
    )
    budget.add_argument("--member", help="a member's name (user@host); default: the team")
    budget.add_argument(
        "--per-day", type=int, metavar="N", help="credits per day (UTC, database clock)"
    )
    budget.add_argument("--per-month", type=int, metavar="N", help="credits per calendar month")


def _add_local(commands: Any) -> None:
    _command(
        commands,
        "status",
        "companion.cli.local:cmd_status",
        help="the running daemon, and its status page link",
    )
    serve = _command(
        commands, "serve", "companion.cli.local:cmd_serve", help="run the daemon for editor plugins"
    )
    serve.add_argument(
        "--port", type=int, default=8791, help="localhost port (default 8791; 0: any free)"
    )
    serve.add_argument(
        "--home",
        type=Path,
        metavar="FOLDER",
        help="COMPANION_HOME for this daemon (the login task on Windows passes it this way)",
    )
    _add_service(commands)
    _add_projects(commands)
    _add_plugin(commands)
    openapi = _command(
        commands,
        "openapi",
        "companion.cli.local:cmd_openapi",
        help="print the remote API's OpenAPI document",
    )
    openapi.add_argument("--out", type=Path, metavar="FILE", help="write it to this file")

    sandbox = _command(
        commands,
        "sandbox",
        "companion.cli.local:cmd_sandbox",
        help="run the local emulator of the remote service",
        description="Serves all operations under /v1 and prints the base URL once it "
        "accepts connections. Keys may name an account as ACCOUNT:KEY.",
    )
    sandbox.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    sandbox.add_argument("--port", type=int, default=8790, help="port (default 8790; 0: any)")
    sandbox.add_argument(
        "--storage-port",
        type=int,
        default=0,
        help="port of the download origin (default: any free port)",
    )
    sandbox.add_argument("--api-key", action="append", help="a key with read and write scopes")
    sandbox.add_argument("--read-only-key", action="append", help="a key with the read scope")
    sandbox.add_argument("--paused-key", action="append", help="a key whose account is paused")
    sandbox.add_argument(
        "--ineligible-key", action="append", help="a key whose account is not eligible"
    )
    sandbox.add_argument(
        "--disabled-key", action="append", help="a key whose account has API access disabled"
    )
    sandbox.add_argument(
        "--credits", type=int, default=1000, help="starting credits per account (default 1000)"
    )
    sandbox.add_argument(
        "--task-seconds", type=float, default=2.0, help="least time a task takes (default 2)"
    )
    sandbox.add_argument(
        "--tier",
        default="registered",
        choices=["registered", "basic", "expert", "ultra"],
        help="account tier and its limits (default registered)",
    )
    sandbox.add_argument("--limits", help="override the tier: CONCURRENCY,QUEUE,CREATES,OTHERS")
    sandbox.add_argument(
        "--faults",
        default="none",
        metavar="PROFILE[:SEED]",
        help="injected faults: " + ", ".join(FAULT_PROFILES) + " (default none; the same "
        "seed makes the same decisions; docs/sandbox.md)",
    )
    sandbox.add_argument("--state", type=Path, help="keep state across restarts in this file")
    sandbox.add_argument(
        "--url-seconds",
        type=int,
        default=300,
        help="lifetime of signed download URLs (default 300)",
    )


def _add_projects(commands: Any) -> None:
    projects = commands.add_parser(
        "projects",
        help="the projects the daemon serves: add, list, remove",
        description="Editor and drop jobs write only into registered projects. add and "
        "remove go through the running daemon (its checks, and an inbox is watched at "
        "once); list works with it stopped. Projects in config.yaml are registered when "
        "the daemon starts and whenever the file changes.",
    )
    verbs = projects.add_subparsers(dest="verb", required=True, metavar="VERB")
    add = _command(
        verbs,
        "add",
        "companion.cli.projects:cmd_add",
        help="register a project, or change what is given of one already registered",
    )
    add.add_argument("root", help="the project's folder (holding project.godot, or Assets/)")
    add.add_argument(
        "--engine", choices=["godot", "unity", "other"], help="the engine (default other)"
    )
    add.add_argument(
        "--target",
        metavar="FOLDER",
        help="outputs folder inside the project (default: animations, or Assets/Animations "
        "for Unity)",
    )
    add.add_argument("--inbox", metavar="FOLDER", help="a drop folder to watch, inside it")
    add.add_argument("--poll", action="store_true", help="poll the inbox (network drives)")
    add.add_argument(
        "--defaults",
        metavar="JSON|FILE",
        help="drop defaults (prompt, export, video, selection) as JSON or a YAML file; "
        "merged one level deep into those registered",
    )
    add.add_argument("--json", action="store_true", help="print the registration as JSON")
    remove = _command(
        verbs,
        "remove",
        "companion.cli.projects:cmd_remove",
        help="forget a project (its files and jobs stay)",
    )
    remove.add_argument("root", help="the project's folder, as registered")
    listing = _command(
        verbs, "list", "companion.cli.projects:cmd_list", help="every registered project"
    )
    listing.add_argument("--json", action="store_true", help="print one JSON object")


def _add_service(commands: Any) -> None:
    service = commands.add_parser(
        "service",
        help="start the daemon at login: install, uninstall, status",
        description="A systemd user unit (Linux), a LaunchAgent (macOS) or a Task "
        "Scheduler task (Windows) that runs `companion serve` for this COMPANION_HOME "
        "with this Python, and starts it again after a failure.",
    )
    verbs = service.add_subparsers(dest="verb", required=True, metavar="VERB")
    _command(
        verbs,
        "install",
        "companion.cli.service:cmd_install",
        help="write, check and start the login service (again: update it)",
    )
    _command(verbs, "uninstall", "companion.cli.service:cmd_uninstall", help="stop and remove it")
    status = _command(
        verbs,
        "status",
        "companion.cli.service:cmd_status",
        help="whether it is installed, current, and the daemon answering",
    )
    status.add_argument("--json", action="store_true", help="print one JSON object")


def _add_plugin(commands: Any) -> None:
    plugin = commands.add_parser(
        "plugin",
        help="the Godot and Unity plugins: install, uninstall, status, pack",
        description="The plugins ship inside this package. install puts one into a "
        "project the engine's way (Godot: addons/companion, enabled in project.godot; "
        "Unity: embedded in Packages/) and registers the project with the daemon; again, "
        "it updates in place and says what changed. A file you changed is never "
        "overwritten.",
    )
    verbs = plugin.add_subparsers(dest="verb", required=True, metavar="VERB")
    for verb, help_text in (
        ("install", "put the plugin into the project (again: update it) and register it"),
        ("uninstall", "take out exactly what install put there"),
        ("status", "the version installed, whether it is current, enabled and registered"),
    ):
        parser = _command(verbs, verb, f"companion.cli.plugin:cmd_{verb}", help=help_text)
        parser.add_argument("engine", choices=["godot", "unity"], help="the project's engine")
        parser.add_argument(
            "project", help="the project's folder (holding project.godot, or Assets/)"
        )
        if verb != "uninstall":
            parser.add_argument("--json", action="store_true", help="print one JSON object")
    pack = _command(
        verbs,
        "pack",
        "companion.cli.plugin:cmd_pack",
        help="build the release artifacts: the Godot Asset Library zip, the Unity package",
    )
    pack.add_argument(
        "--out", type=Path, default=Path("dist"), help="folder to write them to (default dist)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="companion",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_export(commands)
    _add_recut(commands)
    _add_animate(commands)
    _add_service_commands(commands)
    _add_jobs(commands)
    _add_team(commands)
    _add_local(commands)
    return parser


def resolve(handler: Handler) -> Callable[[argparse.Namespace], int]:
    if callable(handler):
        return handler
    module, _, function = handler.partition(":")
    found: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), function)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(resolve(args.handler)(args))
    except CompanionError as exc:
        return fail(as_cli_error(exc))
    except KeyboardInterrupt:
        say("companion: interrupted; run the same command again to go on (nothing is paid twice)")
        return EXIT_INTERRUPTED
