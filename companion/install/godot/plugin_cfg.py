"""The one setting of a Godot project the addon's install touches: its plugin.cfg in the
`enabled=` line of `project.godot`'s `[editor_plugins]` section, edited as text so every
other line stays byte for byte."""

from __future__ import annotations

import re

GODOT_CFG = "res://addons/companion/plugin.cfg"

_SECTION = re.compile(r"^\[([^\]]+)\]\s*$")
_ENABLED = re.compile(r"^enabled\s*=\s*PackedStringArray\((.*)\)\s*$")


def enabled_plugins(text: str) -> list[str]:
    section = None
    for line in text.splitlines():
        if found := _SECTION.match(line):
            section = found.group(1)
        elif section == "editor_plugins" and (found := _ENABLED.match(line)):
            return re.findall(r'"((?:[^"\\]|\\.)*)"', found.group(1))
    return []


def set_enabled(text: str, enable: bool) -> str:
    """project.godot with our plugin enabled or not; only the `enabled=` line of
    `[editor_plugins]` changes (or that section is added at the end)."""
    lines = text.splitlines(keepends=True)
    section = None
    for index, line in enumerate(lines):
        if found := _SECTION.match(line):
            section = found.group(1)
            continue
        if section == "editor_plugins" and (found := _ENABLED.match(line.rstrip("\r\n"))):
            names = re.findall(r'"((?:[^"\\]|\\.)*)"', found.group(1))
            wanted = [n for n in names if n != GODOT_CFG] + ([GODOT_CFG] if enable else [])
            if wanted == names or (enable and GODOT_CFG in names):
                return text
            ending = line[len(line.rstrip("\r\n")) :] or "\n"
            quoted = ", ".join(f'"{n}"' for n in wanted)
            lines[index] = f"enabled=PackedStringArray({quoted}){ending}" if wanted else ""
            return "".join(lines)
    if not enable:
        return text
    body = f'enabled=PackedStringArray("{GODOT_CFG}")\n'
    for index, line in enumerate(lines):
        if _SECTION.match(line) and line.strip() == "[editor_plugins]":
            lines.insert(index + 1, "\n" + body)
            return "".join(lines)
    tail = "" if text.endswith("\n") or not text else "\n"
    return f"{text}{tail}\n[editor_plugins]\n\n{body}"
