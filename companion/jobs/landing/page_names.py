"""The file names of a multi-page spritesheet's pages and their JSON, by each page's
place (see install/sheet_pages.py), not by the order the task listed them in: the names
given when the task ended are only provisional for them (2.1: `outputs` has no order)."""

from __future__ import annotations

import logging
from pathlib import Path

from companion.install import SheetSourceError, Staged, output_file_name, pages_of
from companion.store import AssetRow

log = logging.getLogger("companion.jobs")
SHEET, DATA = "spritesheet", "spritesheet_json"


def placed_names(rows: list[AssetRow], name: str) -> dict[str, str]:
    """Asset id -> file name for each page and JSON of a sheet of several pages (empty:
    keep the names given, for one page, or pages that cannot be told apart)."""
    mine = [r for r in rows if r.format in (SHEET, DATA)]
    sheets = sum(1 for r in mine if r.format == SHEET)
    if sheets < 2 or sheets != len(mine) - sheets:
        return {}
    where = {r.id: next((p for p in (r.installed_path, r.staged_path) if p), None) for r in mine}
    if any(p is None or not Path(p).is_file() for p in where.values()):
        return {}
    staged = {r.file_name: r.id for r in mine}
    try:
        found = pages_of([Staged(r.format, r.file_name, Path(str(where[r.id]))) for r in mine])
    except SheetSourceError as exc:
        log.warning("the sheet's pages keep the names they were given: %s", exc)
        return {}
    names: dict[str, str] = {}
    for page in found:
        for part in (page.sheet, page.data):
            placed = output_file_name(part.format, name, page.index)
            if placed is not None:
                names[staged[part.name]] = placed
    return names if len(names) == len(mine) else {}
