"""Names for exported files that every file system and engine takes."""

from __future__ import annotations

import re
import unicodedata

MAX_NAME_CHARS = 64  # every engine's editor shows it whole; far under path limits
MAX_NAME_BYTES = 160  # UTF-8: with the longest suffix, well under 255-byte file names
# Refused by Windows (and so by a project shared with it), or break the text formats
# the packs hold a name in (Godot's quoted paths, Unity's YAML, JSON keys).
REFUSED = frozenset('<>:"/\\|?*#%[]{}')
RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL"} | {f"{d}{n}" for d in ("COM", "LPT") for n in range(1, 10)}
)
ENDS = "_-. "


def _kept(char: str) -> bool:
    category = unicodedata.category(char)
    if char in REFUSED or (category[0] == "C" and category != "Cf") or category in ("Zl", "Zp"):
        return False
    return not (category == "Cf" and char not in "\u200c\u200d")  # joiners of emoji


def clean_name(text: str) -> str:
    """A name that every file system and engine takes, as close to `text` as that
    allows: NFC, letters and digits of any script and symbols (emoji) kept, only what a
    file system or engine refuses replaced by '_' (separators, control characters,
    Windows' reserved characters and device names, trailing dots and spaces), cut to
    MAX_NAME_CHARS characters and MAX_NAME_BYTES bytes."""
    name = "".join(c if _kept(c) else "_" for c in unicodedata.normalize("NFC", text))
    name = re.sub(r"_{2,}", "_", name).strip(ENDS)
    while name and not (name[0].isalnum() or unicodedata.category(name[0]) == "So"):
        name = name[1:].lstrip(ENDS)  # no leading punctuation: YAML reads it as syntax
    name = name[:MAX_NAME_CHARS]
    while len(name.encode()) > MAX_NAME_BYTES:
        name = name[:-1]
    name = unicodedata.normalize("NFC", name).rstrip(ENDS) or "animation"
    first, dot, rest = name.partition(".")
    if first.upper() in RESERVED:  # Windows: CON and CON.anything are the device
        name = f"{first}_{dot}{rest}"
    return name


def is_clean_name(text: str) -> bool:
    return bool(text) and clean_name(text) == text
