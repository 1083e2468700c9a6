"""The Unity package through a real C# compiler, without a Unity editor.

`tests/support/unity/UnityStubs.cs` stands in for the Unity API the package uses; every type,
constructor, method, field and property it declares is held here to Unity 6's API
database (the `unity-api-mcp` 1.0.2 wheel, whose method names carry their parameter types),
so the stand-ins take exactly Unity's parameters. Mono's C# compiler (`mcs`) then builds
the package against them: argument types, overloads, defaults and the package's own types
are checked, which the member lookup of test_unity_api.py cannot. Return types are not in
the database and are written by hand; Unity compiles with Roslyn, not mcs (see the
package README for what has not run in a real Unity). Built with tests/support/unity/BodyProbe.cs
and run under Mono, the package's own request writing (Json, AdvancedOptions) is then
held to the daemon's schema."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from functools import cache
from pathlib import Path

import pytest
from tree_sitter import Node

from companion.daemon.routes.batch import BatchIn
from companion.daemon.schema.character import CharacterIn
from companion.daemon.schema.requests import AnimateIn, RecutIn
from companion.sandbox.models import check_video
from tests.support.paths import SUPPORT
from tests.support.unity import CS_FILES, DATABASE, MISSING_FROM_DATABASE, nodes, parse, text

STUBS = SUPPORT / "unity" / "UnityStubs.cs"
SYSTEM = {
    "int": "System.Int32", "long": "System.Int64", "float": "System.Single",
    "double": "System.Double", "bool": "System.Boolean", "string": "System.String",
    "byte": "System.Byte", "object": "System.Object", "Type": "System.Type",
    "Exception": "System.Exception", "IEnumerable": "System.Collections.Generic.IEnumerable`1",
}  # fmt: skip
OPERATORS = {"-": "Subtraction", "+": "Addition", "/": "Division"}
# What the database does not list: operators and conversions (Unity declares them), the
# scopes' Dispose (inherited from GUI.Scope, which is IDisposable), and the members
# test_unity_api.py already names with why.
NOT_LISTED = {
    "UnityEngine.Object.op_Implicit", "UnityEngine.Vector2.op_Subtraction",
    "UnityEngine.Vector2.op_Addition", "UnityEngine.Vector2.op_Division",
    "UnityEditor.EditorGUI.DisabledScope.Dispose", "UnityEditor.EditorGUI.IndentLevelScope.Dispose",
    "UnityEditor.EditorGUILayout.HorizontalScope.Dispose",
    "UnityEditor.EditorGUILayout.VerticalScope.Dispose",
    *MISSING_FROM_DATABASE,
}  # fmt: skip


@cache
def documented() -> frozenset[str]:
    with sqlite3.connect(f"file:{DATABASE}?mode=ro", uri=True) as db:
        return frozenset(row[0] for row in db.execute("SELECT fqn FROM api_records"))


def _types(root: Node) -> dict[str, str]:
    """Each type the stand-ins declare, by simple name: its full name."""
    found = {}
    for space in nodes(root, "namespace_declaration"):
        prefix = text(space.child_by_field_name("name"))
        for kind in ("class_declaration", "struct_declaration", "enum_declaration"):
            for declared in nodes(space, kind):
                found[text(declared.child_by_field_name("name"))] = f"{prefix}.{_path(declared)}"
    return found


def _path(declared: Node) -> str:
    """`EditorGUI.DisabledScope` for a nested type."""
    names = []
    node: Node | None = declared
    while node is not None and node.type != "namespace_declaration":
        if node.type in ("class_declaration", "struct_declaration", "enum_declaration"):
            names.append(text(node.child_by_field_name("name")))
        node = node.parent
    return ".".join(reversed(names))


def _full(node: Node, types: dict[str, str]) -> str:
    if node.type == "array_type":
        return _full(node.child_by_field_name("type") or node.named_children[0], types) + "[]"
    if node.type == "qualified_name":
        return _full(node.child_by_field_name("name") or node.named_children[-1], types)
    if node.type == "generic_name":
        name = SYSTEM.get(text(node.named_children[0]), text(node.named_children[0]))
        arguments = next(c for c in node.named_children if c.type == "type_argument_list")
        return name + "<" + ",".join(_full(a, types) for a in arguments.named_children) + ">"
    name = text(node)
    return SYSTEM.get(name) or types.get(name) or name


def _signature(member: Node, types: dict[str, str]) -> str:
    listed = member.child_by_field_name("parameters")
    kinds = []
    for parameter in listed.named_children if listed is not None else []:
        if parameter.type == "parameter":
            kinds.append(_full(parameter.child_by_field_name("type"), types))
        elif parameter.type == "array_type":  # `params T[] name`
            kinds.append(_full(parameter, types))
    return f"({','.join(kinds)})" if kinds else ""


def stand_ins(source: bytes) -> list[tuple[str, int]]:
    """(the database's name for it, line) of everything the stand-ins declare."""
    root = parse(source)
    types = _types(root)
    found = [(full, 0) for full in types.values()]
    for kind in ("constructor_declaration", "method_declaration", "field_declaration",
                 "property_declaration", "event_field_declaration", "operator_declaration",
                 "conversion_operator_declaration", "enum_member_declaration"):  # fmt: skip
        for member in nodes(root, kind):
            owner = member.parent.parent if member.parent is not None else None
            if owner is None:
                continue
            where = types[text(owner.child_by_field_name("name"))]
            line = member.start_point[0] + 1
            if kind == "constructor_declaration":
                found.append((f"{where}.#ctor{_signature(member, types)}", line))
            elif kind == "method_declaration":
                name = text(member.child_by_field_name("name"))
                found.append((f"{where}.{name}{_signature(member, types)}", line))
            elif kind == "operator_declaration":
                symbol = text(member.child_by_field_name("operator"))
                found.append((f"{where}.op_{OPERATORS[symbol]}", line))
            elif kind == "conversion_operator_declaration":
                found.append((f"{where}.op_Implicit", line))
            elif kind in ("property_declaration", "enum_member_declaration"):
                found.append((f"{where}.{text(member.child_by_field_name('name'))}", line))
            else:
                for variable in nodes(member, "variable_declarator"):
                    found.append((f"{where}.{text(variable.named_children[0])}", line))
    return found


def undocumented(source: bytes) -> list[str]:
    known = documented()
    # A method without parameters is listed as `Name` or as `Name()`.
    return [f"line {line}: {name}" for name, line in stand_ins(source)
            if not {name, name + "()"} & known and name not in NOT_LISTED]  # fmt: skip


def test_the_stand_ins_are_unitys_own_signatures() -> None:
    wrong = undocumented(STUBS.read_bytes())
    assert not wrong, "UnityStubs.cs, not in Unity 6's API as documented:\n" + "\n".join(wrong)


def test_the_signature_check_finds_what_unity_does_not_take() -> None:
    source = b"""
namespace UnityEngine { public sealed class GUILayoutOption {} }
namespace UnityEditor
{
    public static class EditorGUILayout
    {
        public static int IntSlider(int v, int a, int b, params UnityEngine.GUILayoutOption[] o)
            => v;
        public static int IntSlider(float v, int a, int b) => 0;
        public static bool Foldout(bool f, string c, bool toggleOnLabelClick) => f;
        public static void Sparkle() {}
    }
}
"""
    assert [w.split(": ", 1)[1] for w in undocumented(source)] == [
        "UnityEditor.EditorGUILayout.IntSlider(System.Single,System.Int32,System.Int32)",
        # Unity's has a fourth, defaulted, parameter: the stand-in must say so.
        "UnityEditor.EditorGUILayout.Foldout(System.Boolean,System.String,System.Boolean)",
        "UnityEditor.EditorGUILayout.Sparkle",
    ]


MCS = shutil.which("mcs")
MONO = shutil.which("mono")


def _need_mono() -> None:
    """Outside CI a machine without Mono skips; with CI=true it fails (.ci/run installs
    Debian's mono-mcs)."""
    if MCS is None or MONO is None:
        message = "needs Mono's C# compiler and runtime: apt install mono-mcs"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


def test_the_package_compiles_against_unitys_signatures(tmp_path: Path) -> None:
    _need_mono()
    assert MCS is not None
    built = subprocess.run(
        [MCS, "-target:library", f"-out:{tmp_path / 'package.dll'}", "-r:System.Core.dll",
         "-warnaserror+", "-nowarn:649", str(STUBS), *map(str, CS_FILES)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr


def test_the_requests_the_package_writes_are_what_the_daemon_takes(tmp_path: Path) -> None:
    """The package's own Json and AdvancedOptions, run under Mono
    (tests/support/unity/BodyProbe.cs): valid JSON, only what was set, each option dropped when the
    model does not take it, and every body accepted by the daemon's schema and the sandbox's model
    check."""
    _need_mono()
    probe = tmp_path / "probe.exe"
    built = subprocess.run(
        [str(MCS), f"-out:{probe}", "-r:System.Core.dll", "-nowarn:649", str(STUBS),
         str(STUBS.with_name("BodyProbe.cs")), *map(str, CS_FILES)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    ran = subprocess.run(
        [str(MONO), str(probe)], capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    escaped, unset, bare, listed, full, seven, nine, lite, lite_seven, lengths = map(
        json.loads, lines[:10]
    )
    whole, picked, anew, named = map(json.loads, lines[10:14])
    finished = json.loads(lines[14])
    several, one, none = lines[15:18]
    character, batched = map(json.loads, lines[18:])
    assert escaped == {
        "text": 'a "quote", a \\ back, \n\r\t, a bell \u0007, é and 飛',
        "tenth": 0.1, "big": 4294967295, "yes": True, "list": ["x", "y"], "seeds": [1, 2],
        "inner": {"k": "v"},
    }  # fmt: skip
    assert unset == {"balance": -1, "budget": {"per_job": -1, "per_day": 5}}
    assert bare == {"video": {"duration_seconds": 2}}  # no listing: nothing added
    assert listed == {"video": {"duration_seconds": 2, "model": "sandbox-motion-1"}}
    assert full == {
        "last_frame_path": "Assets/Art/hero.png",
        "reference_paths": ["Assets/Art/coin.png", "Assets/Art/slime.png"],
        "negative_prompt": "blurry",
        "video": {
            "duration_seconds": 2, "model": "sandbox-motion-1", "seed": 7, "resolution": "480p",
            "style_preset": "pixel_art",
            "transparency": {
                "mode": "alpha_key", "key_color": "#00FF00", "key_selection": "manual"
            },
        },
    }  # fmt: skip
    # The lite model takes no last frame, negative prompt, style, resolution beyond its
    # own or transparency, and one reference: the window drops the rest.
    assert lite == {
        "reference_paths": ["Assets/Art/coin.png"],
        "video": {"duration_seconds": 2, "model": "sandbox-motion-lite", "seed": 7},
    }
    # A length off the model's list is never written: the nearest listed one (the shorter
    # of two as near) is, for each model.
    assert seven["video"]["duration_seconds"] == 6, seven
    assert nine["video"]["duration_seconds"] == 8, nine
    assert lite_seven["video"]["duration_seconds"] == 4, lite_seven
    assert lengths == {"lengths": [1, 2, 3, 4]}
    for body in (listed, full, seven, nine, lite, lite_seven):
        given = AnimateIn.model_validate({"project_root": "/game", "image_path": "a.png", **body})
        check_video(
            given.video,
            prompt="walk",
            negative_prompt=given.negative_prompt,
            has_last_frame=given.last_frame_path is not None,
            reference_images=len(given.reference_paths),
        )
    # The re-cut form: the generation's own settings, then the range clicked on its sheet.
    export = {
        "frame_count": 8, "output_width": 128, "output_height": 96,
        "output_formats": ["spritesheet", "spritesheet_json", "unity_pack"],
    }  # fmt: skip
    form = {"export": export, "name": "hero", "pixel_art": False, "padding": 0}
    assert whole == form
    assert picked == {**form, "selection": {"mode": "range", "start_seconds": 0.5,
                                            "duration_seconds": 1}}  # fmt: skip
    assert anew == {**form, "selection": {"mode": "range", "start_seconds": 1.5,
                                          "duration_seconds": 0.5}}  # fmt: skip
    for body in (whole, picked, anew):
        RecutIn.model_validate(body)
    # The Animate form's name, in any script, reaches the body trimmed and the daemon takes it.
    assert named["name"] == "héros_飛" and named["project_root"] == "/game", named
    assert AnimateIn.model_validate(named).name == "héros_飛"
    # Finishing left as shown is the daemon's to decide (not sent); set, it is sent as set.
    assert not {"in_place", "loop", "trim"} & set(named), named
    assert (finished["in_place"], finished["loop"], finished["trim"]) == (False, True, True)
    assert AnimateIn.model_validate(finished).asked() == {
        "in_place": False, "loop": True, "trim": True}  # fmt: skip
    # The character's set: the form's request without its prompt, named by the form, the
    # moves each with its loop; the batch: each picture, no single picture or name.
    assert "prompt" not in character and character["name"] == "héros_飛", character
    assert character["moves"] == [
        {"name": "idle", "prompt": "idle breathing", "loop": True},
        {"name": "attack", "prompt": "sword slash", "loop": False},
    ], character
    CharacterIn.model_validate(character)
    assert batched["image_paths"] == ["Assets/Art/hero.png", "Assets/Art/coin.png"], batched
    assert "image_path" not in batched and "name" not in batched and batched["prompt"] == "walk"
    BatchIn.model_validate(batched)
    # The files of an earlier job the quote says are replaced, under the price: the clip
    # first, relative to the project, the earlier job's short id, and how to get them back.
    assert several == (
        "Replaces Assets/Animations/hero.anim and 2 more files (job abcdef12, from an "
        "earlier generation; Generations > Import brings it back)"
    )
    assert one.startswith("Replaces Assets/Animations/hero.png (job abcdef12,"), one
    assert none == "[]"
