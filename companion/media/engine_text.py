"""The one serializer for text that goes into an engine's file (a Godot `.tres`/`.tscn`
string, a `res://` path): what a caller, a folder or a name brings is data, so what
could end the string early or start a new line of the format (a quote, a backslash, a
control character) is refused here, never pasted. Folders a caller names are checked
by the same rules before any job exists, so the refusal names the field."""

from __future__ import annotations

import posixpath
import re

from companion.media.errors import EngineTextError

MAX_COMPONENT_BYTES = 255  # one file or folder name, on every file system we write to
# What cannot stand inside a double-quoted engine string without escaping: the quote and
# backslash, every control character (a newline starts a new section) and DEL.
UNSAFE = re.compile(r'["\\\x00-\x1f\x7f]')


def string_refusal(text: str) -> str | None:
    """Why text cannot stand in an engine file's string, or None when it can."""
    bad = UNSAFE.search(text)
    if bad is None:
        return None
    return f"holds {bad.group()!r}, which cannot stand in a Godot or Unity file; rename it"


def folder_text_refusal(relative: str) -> str | None:
    """Why a folder named relative to a project cannot hold the outputs' engine files
    (a name over 255 bytes, or a character no engine string can carry), or None."""
    for part in relative.replace("\\", "/").split("/"):
        size = len(part.encode("utf-8", errors="surrogatepass"))
        if size > MAX_COMPONENT_BYTES:
            return f"a folder name is {size} bytes; at most {MAX_COMPONENT_BYTES} are allowed"
    return string_refusal(relative)


def godot_string(text: str) -> str:
    """text as a Godot string literal, quotes included; EngineTextError when it cannot be."""
    refusal = string_refusal(text)
    if refusal is not None:
        raise EngineTextError(f"{text[:60]!r} {refusal}")
    return f'"{text}"'


def godot_res_path(inside: str) -> str:
    """The res:// path of a file or folder given relative to the project, kept inside it:
    a path that climbs out ('..') or is absolute is refused, as is any unsafe character."""
    clean = posixpath.normpath(inside) if inside else "."
    if clean.startswith("/") or clean == ".." or clean.startswith("../"):
        raise EngineTextError(f"{inside[:60]!r} leads outside the project's res://")
    path = "res://" if clean == "." else f"res://{clean}"
    godot_string(path)
    return path
