"""Where a generated file came from, carried in the engine's own metadata.

One typed record (Provenance) travels from the job to every file an install writes:
the job, the service it was made by (its name or address, never a key or a signed URL),
the model, prompt and seed, the date, the credits it cost, the generation's digest and the
source picture's name and sha256 (built in companion.jobs.provenance, the one place).

- Unity: each `.meta` the install writes holds it in its importer's `userData` (one line
  of JSON), which Unity keeps and shows as AssetImporter.userData.
- Godot: each text resource (`.tres`) holds it as `metadata/companion_provenance`, a
  Dictionary that Godot loads with the resource (Resource.get_meta) and keeps when the
  user saves it. A texture's `.import` is no place for it: Godot writes that file anew on
  every import and drops any key it did not make, so a PNG's record is the one of the
  SpriteFrames that plays it (and the store's, which `companion provenance` lists)."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields
from typing import Any

from companion.install.tree import Tree

GODOT_KEY = "metadata/companion_provenance"
GODOT_LINE = re.compile(rf"^{GODOT_KEY}[ \t]*=.*\n?", re.M)
LAST_SECTION = re.compile(r"^\[(\w+)[^\]\n]*\][ \t\r]*$", re.M)
USER_DATA = re.compile(r"^  userData:.*$", re.M)


@dataclass(frozen=True)
class Provenance:
    """A generated file's record; every field is safe to show and to ship."""

    job: str
    service: str
    model: str
    prompt: str
    seed: int | None
    date: str  # ISO 8601, UTC: when the generation was asked for
    credits: int
    generation: str  # the digest of what the service was paid to generate
    source: str  # the source picture's file name
    source_sha256: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Provenance:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def one_line(self) -> str:
        """JSON on one line: a valid Godot Dictionary literal and a YAML scalar's text."""
        return json.dumps(self.as_dict(), ensure_ascii=False, separators=(", ", ": "))


def unity_meta(text: str, record: Provenance) -> str:
    """A meta with record as its importer's userData (single-quoted YAML)."""
    quoted = "'" + record.one_line().replace("'", "''") + "'"
    return USER_DATA.sub(lambda _: f"  userData: {quoted}", text, count=1)


def godot_resource(text: str, record: Provenance) -> str:
    """A text resource with record in its [resource] section (always the last one)."""
    sections = list(LAST_SECTION.finditer(text))
    if not sections or sections[-1].group(1) != "resource":
        return text
    text = GODOT_LINE.sub("", text).rstrip("\n")
    return f"{text}\n{GODOT_KEY} = {record.one_line()}\n"


def stamp(tree: Tree, record: Provenance) -> None:
    """Write record into every meta and text resource the tree still has to move (an
    install resumed after a crash stamps what is left the same way)."""
    for relative in tree.order:
        path = tree.path(relative)
        if not path.exists():
            continue  # moved before a crash, already stamped
        if relative.endswith(".meta"):
            change = unity_meta
        elif relative.endswith(".tres"):
            change = godot_resource
        else:
            continue
        text = path.read_text(encoding="utf-8")
        stamped = change(text, record)
        if stamped != text:
            tree.write(relative, stamped)
