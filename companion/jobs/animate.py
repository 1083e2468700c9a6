"""File names of a one-click task's outputs, as the job engine installs them.

Every one-click animation (`companion animate`, `demo`, the daemon, watched folders) runs
as a job through the engine (jobs/engine.py); this module only names its files."""

from __future__ import annotations

from companion.api.schema import Asset
from companion.media.export import FILE_SUFFIX


def output_names(assets: list[Asset], name: str) -> list[str]:
    """File names by format; several assets of one format get _p0, _p1 ..."""
    counts: dict[str, int] = {}
    for asset in assets:
        counts[asset.format] = counts.get(asset.format, 0) + 1
    seen: dict[str, int] = {}
    names = []
    for asset in assets:
        suffix = FILE_SUFFIX.get(asset.format, f"_{asset.format}.bin")
        index = seen.get(asset.format, 0)
        seen[asset.format] = index + 1
        stem = name if counts[asset.format] == 1 else f"{name}_p{index}"
        names.append(stem + suffix)
    return names
