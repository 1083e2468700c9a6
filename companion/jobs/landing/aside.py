"""Outputs of a format this companion does not know (spec 2.4: formats are "values
seen"), kept aside: never a path in the project, never a failed job. Each one's bytes
are downloaded, best effort and size-checked like every download, under a name of our
own (the asset id and a suffix from its media type, never the service's format string)
into the job's folder under COMPANION_HOME/aside, and the job's report names it and where
it is. A download that fails leaves it at the service, and the report says so."""

from __future__ import annotations

import logging
import mimetypes
import re
from pathlib import Path
from typing import Any

from companion.api.client import Client
from companion.api.schema import Asset
from companion.install import shown
from companion.media import FILE_SUFFIX, MIME_TYPES
from companion.store import Store

log = logging.getLogger("companion.jobs")

FOLDER = "aside"
SUFFIX = re.compile(r"^\.[a-z0-9]{1,8}$")
# Our own suffixes by media type, then the standard table's, then none of theirs.
_OURS = {mime: FILE_SUFFIX[fmt].rsplit(".", 1)[-1] for fmt, mime in MIME_TYPES.items()}


def suffix_for(mime_type: str) -> str:
    """A file suffix for a media type from outside: only one of ours or the standard
    table's, and only letters and digits; `.bin` otherwise."""
    mime = mime_type.split(";", 1)[0].strip().lower()
    if mime in _OURS:
        return "." + _OURS[mime]
    guessed = mimetypes.guess_extension(mime, strict=False) or ""
    return guessed if SUFFIX.match(guessed) else ".bin"


def entries(assets: list[Asset]) -> list[dict[str, Any]]:
    """What the job keeps of each asset set aside, before its download."""
    return [
        {
            "asset": str(a.id),
            "format": shown(a.format),
            "mime_type": shown(a.mime_type),
            "byte_size": a.byte_size,
            "suffix": suffix_for(a.mime_type),
            "path": None,
            "note": None,
        }
        for a in assets
    ]


def folder(store: Store, job_id: str) -> Path:
    return Path(store.path).parent / FOLDER / job_id


async def download(
    store: Store, client: Client, job_id: str, items: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each entry downloaded once into the job's aside folder; a failure is noted, never
    raised: these are extras the job did not ask for."""
    done: list[dict[str, Any]] = []
    for item in items:
        if item.get("path") and Path(item["path"]).is_file():
            done.append(item)
            continue
        where = folder(store, job_id)
        dest = where / f"{item['asset']}{item['suffix']}"
        try:
            where.mkdir(parents=True, exist_ok=True)
            asset = await client.get_asset(item["asset"])
            path = await client.download_asset(asset, dest)
            done.append({**item, "path": str(path), "note": None})
        except Exception as exc:  # best effort: an extra never fails or hangs the job
            log.warning("job %s: output %s was not downloaded: %s", job_id, item["asset"], exc)
            done.append({**item, "path": None, "note": f"{type(exc).__name__}: {exc}"})
    return done


def said(items: list[dict[str, Any]]) -> list[str]:
    """A line for each, for the job's report."""
    lines = []
    for item in items:
        what = f"{item['format']} (asset {item['asset']}, {item['mime_type']})"
        if item.get("path"):
            lines.append(f"{what} was kept aside at {item['path']}")
        else:
            lines.append(
                f"{what} stays at the service (download it with companion assets download "
                f"{item['asset']} --out FILE)"
            )
    return lines


def summary(items: list[dict[str, Any]]) -> str:
    """One sentence naming every output kept aside, for the job's report."""
    return (
        "the service also returned outputs of formats this companion does not know: "
        + "; ".join(said(items))
    )
