"""Read a spritesheet and its JSON (hash or array layout) back into an Animation, so an
engine pack the service did not return can be built here from what it did return."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from companion.install.errors import SheetSourceError
from companion.media import PIVOTS, Animation, FrameRect, SheetPage, frame_name


@dataclass(frozen=True)
class SheetPair:
    sheet: Path  # the texture as it will be named in the project
    data: Path  # its JSON


@dataclass(frozen=True)
class Defaults:
    """What the request said, for what the JSON leaves out."""

    fps: float = 12.0
    pivot: str = "bottom_center"
    pixels_per_unit: float = 100.0
    pixel_art: bool = False


def _frames(document: dict[str, Any], source: Path) -> list[tuple[str, dict[str, Any]]]:
    frames = document.get("frames")
    if isinstance(frames, dict):
        return [(str(k), v) for k, v in frames.items() if isinstance(v, dict)]
    if isinstance(frames, list):
        return [(str(v.get("filename", i)), v) for i, v in enumerate(frames) if isinstance(v, dict)]
    raise SheetSourceError(f"{source.name}: no 'frames' object or list")


def _rect(entry: dict[str, Any], name: str, source: Path) -> tuple[int, int, int, int]:
    box = entry.get("frame")
    try:
        x, y, w, h = (int(box[k]) for k in ("x", "y", "w", "h"))  # type: ignore[index]
    except (TypeError, KeyError, ValueError) as exc:
        raise SheetSourceError(f"{source.name}: frame {name!r} has no x, y, w, h") from exc
    if entry.get("rotated"):
        raise SheetSourceError(f"{source.name}: frame {name!r} is rotated; not supported")
    if w <= 0 or h <= 0 or x < 0 or y < 0:
        raise SheetSourceError(f"{source.name}: frame {name!r} has an empty or negative box")
    return x, y, w, h


def _placement(entry: dict[str, Any], box: tuple[int, int, int, int]) -> tuple[int, ...]:
    """A trimmed frame's offset in the whole frame and the whole frame's size, from
    `spriteSourceSize` and `sourceSize` (the stored box itself when not trimmed)."""
    inner, whole = entry.get("spriteSourceSize"), entry.get("sourceSize")
    if not entry.get("trimmed") or not isinstance(inner, dict) or not isinstance(whole, dict):
        return 0, 0, box[2], box[3]
    try:
        return int(inner["x"]), int(inner["y"]), int(whole["w"]), int(whole["h"])
    except (KeyError, TypeError, ValueError):
        return 0, 0, box[2], box[3]


def _listed(document: dict[str, Any]) -> list[str] | None:
    """The page's one animation list: top-level `animations` (Pixi's place), else the
    older `meta.animations`."""
    for holder in (document, document.get("meta") or {}):
        animations = holder.get("animations") if isinstance(holder, dict) else None
        if isinstance(animations, dict) and len(animations) == 1:
            listed = next(iter(animations.values()))
            if isinstance(listed, list):
                return [str(n) for n in listed]
    return None


def _order(documents: list[dict[str, Any]], names: list[str]) -> list[str]:
    """Frame order: the pages' animation lists joined in page order when they name every
    frame once (a list may also name the whole animation), else index keys by number,
    else as listed."""
    lists = [_listed(document) for document in documents]
    for candidate in ([n for listed in lists for n in (listed or [])], lists[0] or []):
        if sorted(candidate) == sorted(names):
            return candidate
    if all(n.isdigit() for n in names):
        return sorted(names, key=int)
    return names


def _pivot(entry: dict[str, Any], fallback: str) -> str:
    pivot = entry.get("pivot")
    if isinstance(pivot, dict):
        point = (float(pivot.get("x", -1)), float(pivot.get("y", -1)))
        for name, xy in PIVOTS.items():
            if abs(xy[0] - point[0]) < 1e-6 and abs(xy[1] - point[1]) < 1e-6:
                return name
    return fallback


def read_animation(name: str, pairs: list[SheetPair], defaults: Defaults) -> Animation:
    """One Animation over every page; frames keep the JSON's names and order."""
    if not pairs:
        raise SheetSourceError("no spritesheet with its JSON to build from")
    documents: list[dict[str, Any]] = []
    located: dict[str, tuple[int, dict[str, Any], tuple[int, int, int, int]]] = {}
    sizes: list[tuple[int, int]] = []
    for page, pair in enumerate(pairs):
        try:
            document = json.loads(pair.data.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SheetSourceError(f"{pair.data.name}: not readable JSON ({exc})") from exc
        if not isinstance(document, dict):
            raise SheetSourceError(f"{pair.data.name}: not a JSON object")
        documents.append(document)
        with Image.open(pair.sheet) as image:
            sizes.append(image.size)
        for frame, entry in _frames(document, pair.data):
            box = _rect(entry, frame, pair.data)
            if box[0] + box[2] > sizes[-1][0] or box[1] + box[3] > sizes[-1][1]:
                raise SheetSourceError(f"{pair.data.name}: frame {frame!r} lies outside the sheet")
            located[frame] = (page, entry, box)
    if not located:
        raise SheetSourceError("the spritesheet JSON lists no frames")
    order = _order(documents, list(located))
    meta = documents[0].get("meta") or {}
    fps = float(meta.get("fps") or 0)
    millis = [float(located[f][1].get("duration") or 0) for f in order]
    if fps <= 0:
        known = [m for m in millis if m > 0]
        fps = 1000.0 / statistics.median(known) if known else defaults.fps
    durations = tuple(m / 1000.0 if m > 0 else 1.0 / fps for m in millis)
    first = located[order[0]]
    pages = tuple(
        SheetPage(index=i, path=pair.sheet, width=sizes[i][0], height=sizes[i][1])
        for i, pair in enumerate(pairs)
    )
    for index, frame in enumerate(order):
        page, entry, (x, y, w, h) = located[frame]
        offset_x, offset_y, source_w, source_h = _placement(entry, (x, y, w, h))
        stem = frame.rsplit(".", 1)[0] if frame.lower().endswith(".png") else frame
        if not stem or stem.isdigit():  # keyed by index (Aseprite and Phaser's layout)
            stem = frame_name(name, index, len(order))
        pages[page].frames.append(
            FrameRect(
                index=index,
                name=stem,
                page=page,
                x=x,
                y=y,
                width=w,
                height=h,
                duration=durations[index],
                offset_x=offset_x,
                offset_y=offset_y,
                source_width=source_w,
                source_height=source_h,
            )
        )
    return Animation(
        name=name,
        fps=fps,
        frame_width=_placement(first[1], first[2])[2],
        frame_height=_placement(first[1], first[2])[3],
        durations=durations,
        pivot=_pivot(first[1], defaults.pivot),
        pixels_per_unit=defaults.pixels_per_unit,
        pixel_art=defaults.pixel_art,
        pages=pages,
    )
