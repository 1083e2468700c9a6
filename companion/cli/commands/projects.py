"""`companion projects add|list|remove`: the projects the daemon serves.

With the daemon running, add and remove go through it, so its checks are the ones the
editor plugins meet and a new inbox is watched at once. With it stopped, they hold the
daemon's lock on COMPANION_HOME (so none starts meanwhile), make the same checks of the
root, the engine's layout and the folders, and write the registry the daemon reads when
it starts. list reads the registry either way. Projects listed in config.yaml are
registered by the daemon when it starts and whenever the file changes."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from companion.cli.daemon_link import call, refusal
from companion.cli.errors import InputFailure, UsageError, say
from companion.cli.session import settings
from companion.store import Store

T = TypeVar("T")


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
    reply, running = register(body)
    if args.json:
        print(json.dumps(reply))
        return 0
    if not running:
        print(
            f"registered {reply['root']} ({reply['engine']}); outputs go to "
            f"{reply['target']}; the daemon serves it when it starts"
        )
    else:
        print(f"registered {reply['root']} ({reply['engine']}); outputs go to {reply['target']}")
        if reply.get("inbox"):
            print(f"  watching {Path(reply['root']) / reply['inbox']} for dropped images")
    prompt = (reply.get("defaults") or {}).get("prompt")
    if reply.get("inbox") and not str(prompt or "").strip():
        # Said now, not as the first drop's failure.
        say(
            "companion: note: the project's defaults have no prompt, so a dropped picture "
            "needs a sidecar NAME.yaml with a prompt: line beside it; give every drop one "
            'with: companion projects add ROOT --defaults \'{"prompt": "idle breathing"}\''
        )
    return 0


def register(body: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The registration and whether a running daemon made it: through the daemon when one
    serves this home, else into the registry it reads when it starts (same checks)."""
    home = settings().home
    offline = _without_daemon(home, lambda store: _register(store, body))
    if offline is not None:
        return offline, False
    status, reply = call(home, "POST", "/api/v1/projects", body)
    if status == 400:
        raise UsageError(refusal(reply))
    if status != 201:
        raise InputFailure(refusal(reply))
    return reply, True


def cmd_remove(args: argparse.Namespace) -> int:
    current = settings()
    root = Path(args.root).expanduser().absolute()
    reply: Any = _without_daemon(current.home, lambda store: _forget(store, root))
    if reply is not None:
        status = 200 if reply else 404
    else:
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


def _without_daemon(home: Path, work: Callable[[Store], T]) -> T | None:
    """work's result with the registry held, when no daemon serves this home (None: one
    does, ask it). The daemon's lock keeps one from starting meanwhile."""
    from companion.daemon.errors import HomeInUse
    from companion.daemon.lock import HomeLock

    lock = HomeLock(home)
    try:
        lock.acquire()
    except HomeInUse:
        return None
    try:
        store = Store(home / "companion.db")
        try:
            return work(store)
        finally:
            store.close()
    finally:
        lock.release()


def _register(store: Store, body: dict[str, Any]) -> dict[str, Any]:
    """The registry's rules (the daemon's own), for a daemon that is not running."""
    from companion.daemon import registry
    from companion.daemon.errors import Refused

    given = {k: v for k, v in body.items() if k != "root"}
    try:
        registered = registry.register(store, Path(body["root"]), given)
    except Refused as exc:
        raise UsageError(str(exc)) from exc
    return {
        "root": registered["root"],
        "engine": registered["engine"],
        "target": registered.get("target"),
        "inbox": registered.get("inbox"),
        "defaults": registered.get("defaults") or {},
    }


def _forget(store: Store, root: Path) -> dict[str, Any]:
    """The project forgotten, or {} when it was not registered."""
    from companion.daemon import registry

    project = registry.forget(store, str(root))
    return {} if project is None else {"root": project["root"], "engine": project["engine"]}


def _in_config(projects: list[dict[str, Any]], root: Path) -> bool:
    for project in projects:
        try:
            if Path(str(project["root"])).expanduser().resolve() == root.resolve():
                return True
        except OSError:
            continue
    return False


def cmd_list(args: argparse.Namespace) -> int:
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
