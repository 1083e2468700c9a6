"""`companion provenance PROJECT [--json|--csv]`: every generated file in a project with
where it came from, ready to paste into a store's AI-use disclosure. The store's record
of what it installed is the source (see companion.jobs.provenance); files deleted or
changed since are left out."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from companion.cli.errors import UsageError
from companion.cli.session import settings
from companion.store import Store

COLUMNS = ("path", "job", "service", "model", "prompt", "seed", "date", "credits")
MORE = ("generation", "source", "source_sha256")


def _project(text: str) -> Path:
    root = Path(text).expanduser()
    if not root.exists():
        raise UsageError(
            f"PROJECT {text}: no such folder; give the root of a Godot or Unity project"
        )
    if not root.is_dir():
        raise UsageError(
            f"PROJECT {text}: a file, not a folder; give the project's root folder (the one "
            "holding project.godot, or Assets/)"
        )
    return root.resolve()


def cmd_provenance(args: argparse.Namespace) -> int:
    from companion.jobs import project_files, service_name

    root = _project(args.project)
    current = settings()
    service = service_name(current.base_url) if current.base_url else "embedded sandbox"
    store = Store(current.database)
    try:
        listed = project_files(store, root, service)
    finally:
        store.close()
    rows = [item.row() for item in listed]
    if args.json:
        print(json.dumps({"project": str(root), "data": rows}, ensure_ascii=False))
    elif args.csv:
        writer = csv.DictWriter(sys.stdout, fieldnames=[*COLUMNS, *MORE], lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    elif not rows:
        print(f"no generated files in {root} (none installed, or all deleted or changed since)")
    else:
        for row in rows:
            seed = "" if row["seed"] is None else f", seed {row['seed']}"
            print(
                f"{row['path']}\n  {row['model']}{seed}, {row['date']}, {row['credits']} "
                f"credits, job {row['job']}\n  prompt: {row['prompt']}"
            )
    return 0
