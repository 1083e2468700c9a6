"""The export formats as the media engine names them: their names, MIME types and file
name endings, read from the one table (companion.api.formats)."""

from __future__ import annotations

from companion.api.formats import FORMAT_NAMES, TABLE

FORMATS: tuple[str, ...] = FORMAT_NAMES
SHEET_FORMATS = frozenset(f.value for f, row in TABLE.items() if row.sheet)
MIME_TYPES: dict[str, str] = {f.value: row.mime_type for f, row in TABLE.items()}
# File name endings per format, shared by local exports and downloaded outputs; a video
# preview is an output of its own kind, not a format.
FILE_SUFFIX: dict[str, str] = {
    **{f.value: row.suffix for f, row in TABLE.items()},
    "video_preview": "_preview.png",
}
