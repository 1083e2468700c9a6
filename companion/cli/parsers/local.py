"""The commands of this machine: the daemon (status, serve), the login service, projects,
the editor plugins, the OpenAPI document and the sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.cli.options import FAULT_PROFILES, finite
from companion.cli.parsers.base import command, json_flag, verbs


def add_local(commands: Any) -> None:
    command(commands, "status", "local", help="the running daemon, and its status page link")
    serve = command(commands, "serve", "local", help="run the daemon for editor plugins")
    serve.add_argument(
        "--port", type=int, default=8791, help="localhost port (default 8791; 0: any free)"
    )
    serve.add_argument(
        "--home",
        type=Path,
        metavar="FOLDER",
        help="COMPANION_HOME for this daemon (the login task on Windows passes it this way)",
    )
    command(
        commands,
        "mcp",
        "local",
        help="serve coding agents over stdio (Model Context Protocol)",
        description="The daemon's quote, animate, character, recut and job tools for a "
        "coding agent that starts this command (Claude Code, Cursor, VS Code, Codex): the "
        "daemon of this COMPANION_HOME when one runs, or one started here. Paid calls "
        "spend within the agent limits of config.yaml (agents:) or ask first; "
        "COMPANION_NO_SPEND=1 refuses them all. See docs/agents.md.",
    )
    add_service(commands)
    add_projects(commands)
    add_provenance(commands)
    add_plugin(commands)
    openapi = command(commands, "openapi", "local", help="print the remote API's OpenAPI document")
    openapi.add_argument("--out", type=Path, metavar="FILE", help="write it to this file")

    sandbox = command(
        commands,
        "sandbox",
        "local",
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
    for flag, text in (
        ("--api-key", "a key with read and write scopes"),
        ("--read-only-key", "a key with the read scope"),
        ("--paused-key", "a key whose account is paused"),
        ("--ineligible-key", "a key whose account is not eligible"),
        ("--disabled-key", "a key whose account has API access disabled"),
    ):
        sandbox.add_argument(flag, action="append", help=text)
    sandbox.add_argument(
        "--credits", type=int, default=1000, help="starting credits per account (default 1000)"
    )
    sandbox.add_argument(
        "--task-seconds", type=finite, default=2.0, help="least time a task takes (default 2)"
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
    sandbox.add_argument(
        "--face",
        default="default",
        choices=["default", "latitude"],
        help="how the details the spec leaves open are answered: default, or latitude "
        "(each the other way, still within the spec; docs/sandbox.md)",
    )
    sandbox.add_argument("--state", type=Path, help="keep state across restarts in this file")
    sandbox.add_argument(
        "--url-seconds",
        type=int,
        default=300,
        help="lifetime of signed download URLs (default 300)",
    )


def add_provenance(commands: Any) -> None:
    provenance = command(
        commands,
        "provenance",
        "provenance",
        help="every generated file in a project and where it came from (AI disclosure)",
        description="Lists each file the companion generated into PROJECT that is still as "
        "it was installed (deleted or changed files are left out): its path, job, service, "
        "model, prompt, seed, date and credits, from the companion's own records.",
    )
    provenance.add_argument("project", metavar="PROJECT", help="the project's root folder")
    shape = provenance.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print it as JSON")
    shape.add_argument("--csv", action="store_true", help="print it as CSV (a header row)")


def add_projects(commands: Any) -> None:
    projects = verbs(
        commands,
        "projects",
        help="the projects the daemon serves: add, list, remove",
        description="Editor and drop jobs write only into registered projects. add and "
        "remove go through the running daemon (its checks, and an inbox is watched at "
        "once); list works with it stopped. Projects in config.yaml are registered when "
        "the daemon starts and whenever the file changes.",
    )
    add = command(
        projects,
        "add",
        "projects",
        help="register a project, or change what is given of one already registered",
    )
    add.add_argument("root", help="the project's folder (holding project.godot, or Assets/)")
    add.add_argument(
        "--engine",
        choices=["godot", "unity", "other"],
        help="the engine (default: the folder's, from project.godot or Assets/ and "
        "ProjectSettings/; else other)",
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
    json_flag(add, "print the registration as JSON")
    remove = command(
        projects, "remove", "projects", help="forget a project (its files and jobs stay)"
    )
    remove.add_argument("root", help="the project's folder, as registered")
    json_flag(command(projects, "list", "projects", help="every registered project"))


def add_service(commands: Any) -> None:
    service = verbs(
        commands,
        "service",
        help="start the daemon at login: install, uninstall, status",
        description="A systemd user unit (Linux), a LaunchAgent (macOS) or a Task "
        "Scheduler task (Windows) that runs `companion serve` for this COMPANION_HOME "
        "with this Python, and starts it again after a failure.",
    )
    for verb, text in (
        ("install", "write, check and start the login service (again: update it)"),
        ("uninstall", "stop and remove it"),
        ("status", "whether it is installed, current, and the daemon answering"),
    ):
        parser = command(service, verb, "login_service", help=text)
        if verb == "status":
            json_flag(parser)


def add_plugin(commands: Any) -> None:
    plugin = verbs(
        commands,
        "plugin",
        help="the Godot and Unity plugins: install, uninstall, status, pack",
        description="The plugins ship inside this package. install puts one into a "
        "project the engine's way (Godot: addons/companion, enabled in project.godot; "
        "Unity: embedded in Packages/) and registers the project with the daemon; again, "
        "it updates in place and says what changed. A file you changed is never "
        "overwritten.",
    )
    for verb, help_text in (
        ("install", "put the plugin into the project (again: update it) and register it"),
        ("uninstall", "take out exactly what install put there"),
        (
            "status",
            "the version installed, whether it is current, enabled and registered; "
            "exit 1 when it is not installed",
        ),
    ):
        parser = command(
            plugin,
            verb,
            "plugin",
            help=help_text,
            description=help_text[0].upper() + help_text[1:] + ".",
        )
        parser.add_argument("engine", choices=["godot", "unity"], help="the project's engine")
        parser.add_argument(
            "project", help="the project's folder (holding project.godot, or Assets/)"
        )
        if verb != "uninstall":
            json_flag(parser)
    pack = command(
        plugin,
        "pack",
        "plugin",
        help="build the release artifacts: the Godot Asset Library zip, the Unity package",
    )
    pack.add_argument(
        "--out", type=Path, default=Path("dist"), help="folder to write them to (default dist)"
    )
