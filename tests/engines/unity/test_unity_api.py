"""The Unity package's C# against Unity's real API, without a Unity editor.

Unity's API comes from the database in the `unity-api-mcp` 1.0.2 wheel, built from the
IntelliSense XML docs Unity 6 ships; the C# is read by the tree-sitter C# grammar. Every
`Type.Member` on a Unity type, every member read on a variable of a Unity type, every
Unity type created (with its initialiser's members) and every attribute must exist there;
a capitalised name that is neither ours, nor Unity's, nor one of the .NET types below is
an error too. This does not compile the package or check argument types: see the README
for what has not run in a real Unity."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest
from tree_sitter import Node

from tests.support.unity import (
    CS_FILES,
    DATABASE,
    MISSING_FROM_DATABASE,
    nodes,
    parse,
    text,
)

# .NET types the package uses (from System.*), which the Unity database does not list.
DOTNET = frozenset(
    {
        "Array", "Convert", "Encoding", "Environment", "Exception", "File", "Func", "Math",
        "Path", "Process", "ProcessStartInfo", "Serializable", "String", "Task",
        "TaskCompletionSource", "Uri", "Dictionary", "List", "Action", "Directory",
        "StringComparison", "StringComparer", "Enumerable", "TimeSpan", "DateTime",
        "Obsolete", "Int32", "CultureInfo", "StringBuilder", "Regex",
    }
)  # fmt: skip
# Unity's class hierarchy where the package reads an inherited member: the database lists
# a member only on the class that declares it.
BASES = {
    "Texture2D": "Texture",
    "Texture": "Object",
    "Sprite": "Object",
    "AnimationClip": "Motion",
    "Motion": "Object",
    "EditorWindow": "ScriptableObject",
    "ScriptableObject": "Object",
    "UnityWebRequestAsyncOperation": "AsyncOperation",
    "DownloadHandlerBuffer": "DownloadHandler",
    "UploadHandlerRaw": "UploadHandler",
}
UNITY_NAMESPACES = frozenset({"UnityEngine", "UnityEditor"})


@dataclass
class UnityApi:
    types: dict[str, set[str]] = field(default_factory=dict)  # name -> namespaces
    members: set[str] = field(default_factory=set)  # "Ns.Type.Member"

    def namespaces(self, name: str, usings: set[str]) -> set[str]:
        return self.types.get(name, set()) & usings

    def has(self, namespaces: set[str], type_name: str, member: str) -> bool:
        while type_name:
            if any(f"{ns}.{type_name}.{member}" in self.members for ns in namespaces):
                return True
            type_name = BASES.get(type_name, "")
            namespaces = self.types.get(type_name, set()) if type_name else set()
        return False


@cache
def unity_api() -> UnityApi:
    api = UnityApi()
    with sqlite3.connect(f"file:{DATABASE}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT fqn, namespace, class_name, member_type FROM api_records")
        for fqn, namespace, class_name, kind in rows:
            if not namespace.startswith("Unity"):
                continue
            if kind == "type":
                api.types.setdefault(class_name, set()).add(namespace)
            else:
                api.members.add(fqn.split("(", 1)[0])
    api.members |= MISSING_FROM_DATABASE.keys()
    return api


def type_name(node: Node | None) -> str:
    """`Texture2D`, `List<Sprite>` -> `List`, `UnityEngine.Object` -> `Object`."""
    if node is None:
        return ""
    if node.type == "generic_name":
        return text(node.children[0])
    if node.type == "qualified_name":
        return text(node.child_by_field_name("name"))
    return text(node)


def variable_types(root: Node) -> dict[str, str]:
    """What each variable, field or parameter is declared as, where the code says."""
    found: dict[str, str] = {}
    for declaration in nodes(root, "variable_declaration"):
        declared = type_name(declaration.child_by_field_name("type"))
        for variable in nodes(declaration, "variable_declarator"):
            name = text(variable.child_by_field_name("name") or variable.children[0])
            value = next(
                (c for c in variable.children if c.is_named and c.type != "identifier"), None
            )
            if declared == "var" and value is not None:
                declared_now = created_type(value)
                if declared_now:
                    found[name] = declared_now
            elif declared != "var":
                found[name] = declared
    for parameter in nodes(root, "parameter"):
        found[text(parameter.child_by_field_name("name"))] = type_name(
            parameter.child_by_field_name("type")
        )
    return found


def created_type(value: Node) -> str:
    """The type a `var` gets from `new T()`, `(T)x` or `Something.Load<T>(...)`."""
    if value.type == "object_creation_expression":
        return type_name(value.child_by_field_name("type"))
    if value.type == "cast_expression":
        return type_name(value.child_by_field_name("type"))
    if value.type == "invocation_expression":
        function = value.child_by_field_name("function")
        name = function.child_by_field_name("name") if function is not None else None
        if name is not None and name.type == "generic_name":
            arguments = next(n for n in name.children if n.type == "type_argument_list")
            return type_name(arguments.named_children[0])
    return ""


def declared_types(root: Node) -> set[str]:
    return {
        text(d.child_by_field_name("name"))
        for kind in ("class_declaration", "struct_declaration", "enum_declaration")
        for d in nodes(root, kind)
    }


@cache
def package_types() -> frozenset[str]:
    """Every type the package declares, in any of its files."""
    return frozenset(name for path in CS_FILES for name in declared_types(parse(path.read_bytes())))


def unity_problems(source: bytes, where: str) -> list[str]:
    api = unity_api()
    root = parse(source)
    usings = {text(u.named_children[0]) for u in nodes(root, "using_directive")}
    # Types of ours, and our own capitalised properties (`Chosen.id` is not a type).
    ours = (
        declared_types(root)
        | package_types()
        | {text(p.child_by_field_name("name")) for p in nodes(root, "property_declaration")}
    )
    variables = variable_types(root)
    problems: list[str] = []

    def at(node: Node) -> str:
        return f"{where}:{node.start_point[0] + 1}"

    for access in nodes(root, "member_access_expression"):
        left = access.child_by_field_name("expression")
        member = type_name(access.child_by_field_name("name"))
        if left is not None and left.type == "member_access_expression":
            # `UnityEngine.Object.DestroyImmediate`: a type named with its namespace.
            space = text(left.child_by_field_name("expression"))
            qualified = type_name(left.child_by_field_name("name"))
            known = space in api.types.get(qualified, set())
            if space in UNITY_NAMESPACES and known and not api.has({space}, qualified, member):
                problems.append(f"{at(access)}: {space}.{qualified} has no {member}")
            continue
        if left is None or left.type != "identifier":
            continue
        name = text(left)
        if name in UNITY_NAMESPACES:  # `UnityEngine.Object`: the type must be there
            if member not in api.types or name not in api.types[member]:
                problems.append(f"{at(access)}: {name} has no type {member}")
            continue
        if name in variables:  # an instance: its member on its (Unity) type
            declared = variables[name]
            spaces = api.namespaces(declared, usings)
            if spaces and not api.has(spaces, declared, member):
                problems.append(f"{at(access)}: {declared} has no {member}")
            continue
        if not name[:1].isupper() or name in ours or name in DOTNET:
            continue
        spaces = api.namespaces(name, usings)
        if not spaces:
            problems.append(f"{at(access)}: {name} is not a Unity type (nor ours)")
        elif not api.has(spaces, name, member):
            problems.append(f"{at(access)}: {name} has no {member}")

    for creation in nodes(root, "object_creation_expression"):
        created = type_name(creation.child_by_field_name("type"))
        spaces = api.namespaces(created, usings)
        if not spaces or created in ours:
            continue
        if creation.child_by_field_name("arguments") is not None and not api.has(
            spaces, created, "#ctor"
        ):
            problems.append(f"{at(creation)}: {created} has no constructor")
        for initializer in creation.named_children:
            if initializer.type != "initializer_expression":
                continue
            for assignment in initializer.named_children:
                if assignment.type != "assignment_expression":
                    continue
                member = text(assignment.child_by_field_name("left"))
                if not api.has(spaces, created, member):
                    problems.append(f"{at(assignment)}: {created} has no {member}")

    for attribute in nodes(root, "attribute"):
        name = type_name(attribute.child_by_field_name("name"))
        if name in DOTNET or name in ours:
            continue
        if not (api.namespaces(name, usings) or api.namespaces(name + "Attribute", usings)):
            problems.append(f"{at(attribute)}: no attribute {name} in Unity")
    return problems


def test_the_database_is_unity_6() -> None:
    api = unity_api()
    assert len(api.members) > 30000, "the unity-api-mcp database is not the one expected"
    assert api.has({"UnityEditor"}, "AssetDatabase", "LoadAssetAtPath")
    with sqlite3.connect(f"file:{DATABASE}?mode=ro", uri=True) as db:
        for fqn in MISSING_FROM_DATABASE:  # added by hand only while the database lacks it
            assert not db.execute("SELECT 1 FROM api_records WHERE fqn = ?", (fqn,)).fetchall()


@pytest.mark.parametrize("path", CS_FILES, ids=lambda p: p.name)
def test_unity_package_uses_only_unity_api_that_exists(path: Path) -> None:
    problems = unity_problems(path.read_bytes(), path.name)
    assert not problems, "\n".join(problems)


def test_the_check_finds_an_invented_member_type_and_attribute() -> None:
    source = b"""
using UnityEditor;
using UnityEngine;
class Probe : EditorWindow
{
    [MenuItemz("x")] static void Open() {}
    void OnGUI()
    {
        EditorGUILayout.FancyField("a");
        Rect box = GUILayoutUtility.GetRect(1f, 1f);
        var middle = box.middle;
        var texture = new Texture2D(2, 2) { sharpness = 1 };
        PrefabWizard.Make();
        UnityEngine.Object.Vanish(texture);
        UnityEngine.Thing.Make();
    }
}
"""
    problems = unity_problems(source, "probe.cs")
    assert [p.split(": ", 1)[1] for p in problems] == [
        "EditorGUILayout has no FancyField",
        "Rect has no middle",
        "PrefabWizard is not a Unity type (nor ours)",
        "UnityEngine.Object has no Vanish",
        "UnityEngine has no type Thing",
        "Texture2D has no sharpness",
        "no attribute MenuItemz in Unity",
    ], problems
