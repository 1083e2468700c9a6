"""What several test modules share."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import tree_sitter_c_sharp
from tree_sitter import Language, Node, Parser

from tests.support.paths import REPO

EVENT = """  m_Events:
  - time: 0.25
    functionName: Footstep
    data: left
    objectReferenceParameter: {fileID: 0}
    floatParameter: 0
    intParameter: 0
    messageOptions: 0
"""

FLOAT_CURVE = """  m_FloatCurves:
  - curve:
      serializedVersion: 2
      m_Curve: []
      m_PreInfinity: 2
      m_PostInfinity: 2
      m_RotationOrder: 4
    attribute: m_Color.a
    path:
    classID: 212
    script: {fileID: 0}
    flags: 0
"""


def as_unity_saves_it(clip: str, layout: str = "unity") -> str:
    """What the user does in Unity's Animation window: loop off, an event, a fade curve;
    saved as Unity writes a PPtr curve (`- serializedVersion: 2` before `curve:`, a space
    after an empty `path:`), or in the layout the companion writes."""
    assert "    m_LoopTime: 1\n" in clip and "  m_Events: []\n" in clip
    if layout == "unity":
        assert "  m_PPtrCurves:\n  - curve:\n" in clip
        clip = clip.replace(
            "  m_PPtrCurves:\n  - curve:\n",
            "  m_PPtrCurves:\n  - serializedVersion: 2\n    curve:\n",
        ).replace("    path:\n", "    path: \n")
    clip = clip.replace("    m_LoopTime: 1\n", "    m_LoopTime: 0\n")
    clip = clip.replace("  m_Events: []\n", EVENT)
    return clip.replace("  m_FloatCurves: []\n", FLOAT_CURVE)


CS_FILES = sorted((REPO / "engine_plugins" / "unity").rglob("*.cs"))

# The wheel's data, found without importing its server (the mcp package is not needed).
_SPEC = importlib.util.find_spec("unity_api_mcp")

DATABASE = Path(_SPEC.origin if _SPEC and _SPEC.origin else ".").parent / "data/unity_docs.db"

# Real Unity members the database lacks (its XML has no entry for them), each with why.
MISSING_FROM_DATABASE = {
    "UnityEngine.AsyncOperation.completed": "an event of AsyncOperation since Unity 2017.2",
}


def nodes(node: Node, kind: str) -> Iterator[Node]:
    if node.type == kind:
        yield node
    for child in node.children:
        yield from nodes(child, kind)


def text(node: Node | None) -> str:
    return "" if node is None else (node.text or b"").decode()


def parse(source: bytes) -> Node:
    return Parser(Language(tree_sitter_c_sharp.language())).parse(source).root_node
