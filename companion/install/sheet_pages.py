"""A returned spritesheet's pages, each with its JSON and its place, told by what they
are, never by their order in the task's `outputs` (spec 2.1: no order): a JSON's place is
the first frame it holds (its frame tag's `from`, else its lowest index key), its sheet
the one page of the size its `meta.size` gives (and that holds every frame it lists).
Pages of one size are told apart by which of them the JSON names (`meta.image`) when its
name is theirs, else they cannot be told apart and the pairing is refused, saying so."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from PIL import Image

from companion.install.errors import SheetSourceError
from companion.install.tree import Staged


@dataclass(frozen=True)
class Page:
    index: int  # its place among the pages
    sheet: Staged
    data: Staged


def _document(data: Staged) -> dict[str, Any]:
    try:
        document = json.loads(data.path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SheetSourceError(f"{data.name}: not readable JSON ({exc})") from exc
    if not isinstance(document, dict):
        raise SheetSourceError(f"{data.name}: not a JSON object")
    return document


def _place(document: dict[str, Any]) -> float:
    """The first frame this page holds, or infinity when it does not say."""
    meta = document.get("meta") if isinstance(document.get("meta"), dict) else {}
    tags = meta.get("frameTags") if isinstance(meta, dict) else None
    starts = [t.get("from") for t in tags or [] if isinstance(t, dict)]
    numbers = [s for s in starts if isinstance(s, int)]
    if numbers:
        return float(min(numbers))
    frames = document.get("frames")
    keys = frames.keys() if isinstance(frames, dict) else []
    indices = [int(k) for k in keys if str(k).isdigit()]
    return float(min(indices)) if indices else float("inf")


def _needs(document: dict[str, Any]) -> tuple[tuple[int, int] | None, tuple[int, int]]:
    """The page size the JSON states (None: not stated) and the least size its frames need."""
    meta = document.get("meta") if isinstance(document.get("meta"), dict) else {}
    size = meta.get("size") if isinstance(meta, dict) else None
    stated = None
    if isinstance(size, dict):
        try:
            stated = (int(size["w"]), int(size["h"]))
        except (KeyError, TypeError, ValueError):
            stated = None
    frames = document.get("frames")
    entries = frames.values() if isinstance(frames, dict) else frames or []
    right = bottom = 0
    for entry in entries:
        box = entry.get("frame") if isinstance(entry, dict) else None
        try:
            right = max(right, int(box["x"]) + int(box["w"]))  # type: ignore[index]
            bottom = max(bottom, int(box["y"]) + int(box["h"]))  # type: ignore[index]
        except (TypeError, KeyError, ValueError):
            continue
    return stated, (right, bottom)


def _size(sheet: Staged) -> tuple[int, int]:
    try:
        with Image.open(sheet.path) as image:
            return image.size
    except OSError as exc:
        raise SheetSourceError(f"{sheet.name}: not a readable picture ({exc})") from exc


def pages(outputs: list[Staged]) -> list[Page]:
    """Every returned spritesheet page with its JSON, in page order (empty when either
    is missing); SheetSourceError when a JSON has no page of its own."""
    sheets = [o for o in outputs if o.format == "spritesheet"]
    datas = [o for o in outputs if o.format == "spritesheet_json"]
    if not sheets or not datas:
        return []
    documents = {d.name: _document(d) for d in datas}
    ordered = sorted(datas, key=lambda d: (_place(documents[d.name]), d.name))
    sizes = {s.name: _size(s) for s in sheets}
    free = list(sheets)
    found: list[Page] = []
    for index, data in enumerate(ordered):
        document = documents[data.name]
        stated, least = _needs(document)
        fits = [
            s
            for s in free
            if (stated is None or sizes[s.name] == stated)
            and sizes[s.name][0] >= least[0]
            and sizes[s.name][1] >= least[1]
        ]
        if len(fits) > 1:
            meta = document.get("meta")
            image = str(meta.get("image", "")) if isinstance(meta, dict) else ""
            fits = [s for s in fits if s.name == image] or fits
        if not fits:
            raise SheetSourceError(f"{data.name} names no spritesheet page that was returned")
        if len(fits) > 1:
            raise SheetSourceError(
                f"{data.name} fits {len(fits)} returned spritesheet pages of the same size "
                "and names none of them, so which is its own cannot be told"
            )
        free.remove(fits[0])
        found.append(Page(index, fits[0], data))
    return found
