"""`companion projects add|list|remove`: the projects the daemon serves.

add and remove go through the running daemon, so its checks are the ones the editor
plugins meet and a new inbox is watched at once; list reads the registry directly and
works with the daemon stopped. Projects listed in config.yaml are registered by the
daemon when it starts and whenever the file changes."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from companion.cli.daemon_link import call, refusal
from companion.cli.errors import InputFailure, UsageError
from companion.cli.session import settings


def _defaults(text: str | None) -> dict[str, Any] | None:
    """--defaults: a JSON object, or a YAML/JSON file holding one."""
    if text is None:
        return None
    import yaml

    source = Path(text).expanduser()
    try:
        raw = source.read_text() if source.is_file() else text
        value = yaml.safe_load(raw)
    except (OSError, yaml.YAMLError) as exc:
        raise UsageError(f"--defaults: not readable as JSON or YAML ({exc})") from exc
    if not isinstance(value, dict):
        raise UsageError(
            '--defaults: give a mapping, e.g. \'{"prompt": "idle", "export": {...}}\' or a '
            "YAML file holding one"
        )
    return value


def cmd_add(args: argparse.Namespace) -> int:
    root = Path(args.root).expanduser().absolute()
    body: dict[str, Any] = {"root": str(root)}
    for key in ("engine", "target", "inbox"):
        if getattr(args, key) is not None:
            body[key] = getattr(args, key)
    if args.poll:
        body["poll"] = True
    defaults = _defaults(args.defaults)
    if defaults is not None:
        body["defaults"] = defaults
    status, reply = call(settings().home, "POST", "/api/v1/projects", body)
    if status == 400:
        raise UsageError(refusal(reply))
    if status != 201:
        raise InputFailure(refusal(reply))
    if args.json:
        print(json.dumps(reply))
        return 0
    print(f"registered {reply['root']} ({reply['engine']}); outputs go to {reply['target']}")
    if reply.get("inbox"):
        print(f"  watching {Path(reply['root']) / reply['inbox']} for dropped images")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    current = settings()
    root = Path(args.root).expanduser().absolute()
    status, reply = call(current.home, "POST", "/api/v1/projects/remove", {"root": str(root)})
    if status == 404:
        raise UsageError(f"{root} is not a registered project (see: companion projects list)")
    if status != 200:
        raise InputFailure(refusal(reply))
    print(f"removed {reply['root']}; its files and jobs stay as they are")
    if _in_config(current.projects, Path(reply["root"])):
        print(
            f"note: it is listed in {current.config_file}; remove it there too, or the "
            "daemon registers it again when it reads the file"
        )
    return 0


def _in_config(projects: list[dict[str, Any]], root: Path) -> bool:
    for project in projects:
        try:
            if Path(str(project["root"])).expanduser().resolve() == root.resolve():
                return True
        except OSError:
            continue
    return False


def cmd_list(args: argparse.Namespace) -> int:
    from companion.store import Store

    current = settings()
    store = Store(current.database)
    try:
        projects = store.projects()
    finally:
        store.close()
    for project in projects:
        project["in_config"] = _in_config(current.projects, Path(project["root"]))
    if args.json:
        print(json.dumps({"data": projects}))
        return 0
    if not projects:
        print("no projects registered; add one with: companion projects add ROOT --engine godot")
        return 0
    for project in projects:
        where = " (config.yaml)" if project["in_config"] else ""
        print(f"{project['root']}  {project['engine']}{where}")
        for key in ("target", "inbox"):
            if project.get(key):
                print(f"  {key}: {project[key]}")
        if project.get("defaults"):
            print(f"  defaults: {json.dumps(project['defaults'])}")
    return 0
