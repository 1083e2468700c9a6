"""`companion plugin install|uninstall|status|pack`: the editor plugins shipped inside
this package, put into a user's project the engine's own way and registered with the
daemon, and the release artifacts built from them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from companion.cli.errors import EXIT_FAILED, UsageError
from companion.install import Change, PluginEngine, PluginError


def _project(args: argparse.Namespace) -> Path:
    return Path(args.project).expanduser().absolute()


def _show(change: Change) -> None:
    for label, names in (
        ("added", change.added),
        ("updated", change.updated),
        ("removed", change.removed),
        ("kept (changed or made by you)", change.kept),
    ):
        for name in names:
            print(f"  {label}: {name}")
    for line in change.settings:
        print(f"  {line}")


def cmd_install(args: argparse.Namespace) -> int:
    from companion.cli.commands.projects import register
    from companion.cli.launch_record import record_command
    from companion.cli.session import settings
    from companion.install import install_plugin

    engine: PluginEngine = args.engine
    try:
        root, change = install_plugin(engine, _project(args))
    except PluginError as exc:
        raise UsageError(str(exc)) from exc
    registration, running = register({"root": str(root), "engine": engine})
    recorded = record_command(settings().home)  # what the editor's Start daemon runs
    if args.json:
        print(
            json.dumps(
                {
                    **change.as_json(),
                    "project": str(root),
                    "registered": registration,
                    "command": recorded,
                }
            )
        )
        return 0
    if change.nothing:
        print(f"the {engine} plugin {change.version} in {root} is already current; nothing changed")
    elif change.version_before is None:
        print(f"installed the {engine} plugin {change.version} into {root}")
    elif change.version_before != change.version:
        print(f"updated the {engine} plugin {change.version_before} -> {change.version} in {root}")
    else:
        print(f"updated the {engine} plugin {change.version} in {root}")
    _show(change)
    where = "with the running daemon" if running else "(the daemon serves it when it starts)"
    print(f"registered {registration['root']} {where}")
    print(f"Start daemon in the editor runs: {' '.join(recorded)} serve")
    if engine == "godot":
        print("open the project in Godot: the Companion tab is in the bottom panel")
    else:
        print("open the project in Unity: Window > Companion > Animate, or Animate... on a picture")
    return 0


def cmd_uninstall(args: argparse.Namespace) -> int:
    from companion.install import uninstall_plugin

    engine: PluginEngine = args.engine
    try:
        root, change = uninstall_plugin(engine, _project(args))
    except PluginError as exc:
        raise UsageError(str(exc)) from exc
    if change.nothing and not change.kept:
        print(f"the {engine} plugin is not installed in {root}; nothing changed")
        return 0
    print(f"uninstalled the {engine} plugin {change.version_before or ''} from {root}".strip())
    _show(change)
    print(
        "the project stays registered with the daemon (its outputs and jobs too); forget it "
        f"with: companion projects remove {root}"
    )
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from companion.cli.session import settings
    from companion.install import plugin_status
    from companion.store import Store

    engine: PluginEngine = args.engine
    try:
        found: dict[str, Any] = plugin_status(engine, _project(args))
    except PluginError as exc:
        raise UsageError(str(exc)) from exc
    store = Store(settings().database)
    try:
        found["registered"] = any(p["root"] == found["project"] for p in store.projects())
    finally:
        store.close()
    missing = EXIT_FAILED if found["installed"] is None else 0  # for `&&` and scripts
    if args.json:
        print(json.dumps(found))
        return missing
    fix = f"companion plugin install {engine} {found['project']}"
    if found["installed"] is None:
        print(f"the {engine} plugin is not installed in {found['project']}; install it with: {fix}")
        return missing
    state = (
        "current" if found["current"] else f"not current (this companion ships {found['shipped']})"
    )
    print(f"{engine} plugin {found['installed']} in {found['path']}: {state}")
    for name in found["changed_files"]:
        print(f"  changed since it was installed: {name}")
    if engine == "godot" and not found["enabled"]:
        print("  not enabled in project.godot")
    print(f"  registered with the daemon: {'yes' if found['registered'] else 'no'}")
    blocking = found["blocking_files"]
    if blocking:  # install would refuse until they are gone: say so, naming them
        print(
            f"  to fix: move {', '.join(blocking)} out of {found['project']} (install never "
            f"overwrites a file you changed; keep a copy of your edits), then run: {fix}"
        )
    elif not found["current"] or not found["registered"] or not found.get("enabled", True):
        print(f"  to fix: {fix}")
    return 0


def cmd_pack(args: argparse.Namespace) -> int:
    from companion.install import godot_zip, unity_tarball

    try:
        made = [godot_zip(args.out), unity_tarball(args.out)]
    except PluginError as exc:
        raise UsageError(str(exc)) from exc
    for path in made:
        print(path)
    print(
        "the Unity package also installs from the repository as a git URL ending in "
        ".git?path=engine_plugins/unity"
    )
    return 0
