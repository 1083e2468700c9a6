"""The editor plugins' sources: GDScript parsed and linted by gdtoolkit, C# parsed by the
tree-sitter C# grammar, and the manifests each editor reads checked for what it needs."""

from __future__ import annotations

import configparser
import json
from pathlib import Path

import pytest
import tree_sitter_c_sharp
from gdtoolkit.linter import DEFAULT_CONFIG, lint_code
from gdtoolkit.parser import parser as gdparser
from PIL import Image
from tree_sitter import Language, Node, Parser

from companion.media.demo_art import SAMPLE_ART
from tests.support.paths import REPO

GODOT = REPO / "engine_plugins" / "godot" / "addons" / "companion"
UNITY = REPO / "engine_plugins" / "unity"
GD_FILES = sorted(GODOT.glob("*.gd"))
CS_FILES = sorted(UNITY.rglob("*.cs"))


def test_there_is_something_to_check() -> None:
    assert {p.name for p in GD_FILES} >= {"plugin.gd", "dock.gd", "daemon_client.gd"}
    assert {p.name for p in CS_FILES} >= {"AnimateWindow.cs", "DaemonClient.cs"}


@pytest.mark.parametrize("path", GD_FILES, ids=lambda p: p.name)
def test_gdscript_parses_and_lints_clean(path: Path) -> None:
    code = path.read_text()
    gdparser.parse(code)  # raises on a syntax error
    problems = lint_code(code, DEFAULT_CONFIG)
    assert not problems, "\n".join(f"{path.name}:{p.line}: {p.description}" for p in problems)


def test_godot_plugin_cfg_names_its_script() -> None:
    config = configparser.ConfigParser()
    config.read(GODOT / "plugin.cfg")
    plugin = config["plugin"]
    assert plugin["name"].strip('"') and plugin["version"].strip('"')
    assert (GODOT / plugin["script"].strip('"')).is_file()


def _errors(node: Node) -> list[Node]:
    if node.type == "ERROR" or node.is_missing:
        return [node]
    return [e for child in node.children for e in _errors(child)]


@pytest.mark.parametrize("path", CS_FILES, ids=lambda p: p.name)
def test_csharp_parses_without_errors(path: Path) -> None:
    tree = Parser(Language(tree_sitter_c_sharp.language())).parse(path.read_bytes())
    errors = _errors(tree.root_node)
    where = [f"{path.name}:{e.start_point[0] + 1}:{e.start_point[1] + 1}" for e in errors]
    assert not errors, f"syntax errors at {where}"


def test_csharp_check_catches_a_broken_file() -> None:
    tree = Parser(Language(tree_sitter_c_sharp.language())).parse(b"class A { void F( { } }")
    assert _errors(tree.root_node)


def test_unity_package_is_editor_only_and_complete() -> None:
    package = json.loads((UNITY / "package.json").read_text())
    assert package["name"] == "dev.companion.animate" and package["unity"] >= "2021.3"
    asmdefs = list(UNITY.rglob("*.asmdef"))
    assert len(asmdefs) == 1
    assembly = json.loads(asmdefs[0].read_text())
    assert assembly["includePlatforms"] == ["Editor"]
    # Every file and folder of the package carries its meta with a distinct guid.
    guids = set()
    for path in [*UNITY.rglob("*")]:
        # Unity imports nothing under a folder ending in ~ (Samples~ is copied on request).
        if path.suffix == ".meta" or "Samples~" in path.relative_to(UNITY).parts:
            continue
        meta = path.with_name(path.name + ".meta")
        assert meta.is_file(), f"{path.relative_to(UNITY)} has no .meta"
        guid = meta.read_text().split("guid: ")[1].split()[0]
        assert len(guid) == 32 and guid not in guids
        guids.add(guid)


def test_sample_frames_are_the_projects_own_drawings() -> None:
    for name, (draw, size) in SAMPLE_ART.items():
        expected = draw(size).tobytes()
        for folder in (REPO / "samples/godot/art", REPO / "samples/unity/Assets/Art"):
            with Image.open(folder / f"{name}.png") as image:
                assert image.size == (size, size)
                assert image.convert("RGBA").tobytes() == expected, f"{folder}/{name}.png"


def test_sample_projects_have_the_plugins_installed() -> None:
    godot = (REPO / "samples/godot/project.godot").read_text()
    assert 'enabled=PackedStringArray("res://addons/companion/plugin.cfg")' in godot
    assert (REPO / "samples/godot/addons/companion/plugin.cfg").is_file()
    manifest = json.loads((REPO / "samples/unity/Packages/manifest.json").read_text())
    reference = manifest["dependencies"]["dev.companion.animate"].removeprefix("file:")
    assert (REPO / "samples/unity/Packages" / reference).resolve() == UNITY.resolve()


# -- what the Unity window must not do (read from its syntax tree) ----------------------


def _tree(path: Path) -> Node:
    return Parser(Language(tree_sitter_c_sharp.language())).parse(path.read_bytes()).root_node


def _nodes(node: Node, kind: str) -> list[Node]:
    found = [node] if node.type == kind else []
    return found + [n for child in node.children for n in _nodes(child, kind)]


def _text(node: Node) -> str:
    return (node.text or b"").decode()


def _class_fields(path: Path, name: str) -> list[str]:
    for declared in _nodes(_tree(path), "class_declaration"):
        if _text(declared.child_by_field_name("name") or declared) == name:
            return [
                _text(v.children[0])
                for field in _nodes(declared, "field_declaration")
                for v in _nodes(field, "variable_declarator")
            ]
    raise AssertionError(f"{path.name} declares no class {name}")


def test_unity_window_loses_no_task_exception() -> None:
    """`_ = SomeAsync();` drops whatever the task throws; every request goes through a
    runner that shows the failure instead."""
    discarded = [
        f"{path.name}:{node.start_point[0] + 1}"
        for path in CS_FILES
        for node in _nodes(_tree(path), "assignment_expression")
        if _text(node.children[0]) == "_"
    ]
    assert not discarded, f"tasks whose exceptions are lost: {discarded}"


def test_unity_package_compiles_with_default_references() -> None:
    """System.Net.Http is not referenced by the editor's .NET Framework profile from 2023.1
    on; without a csc.rsp that adds it, the package must not use it."""
    users = [
        path.name
        for path in CS_FILES
        for directive in _nodes(_tree(path), "using_directive")
        if "System.Net.Http" in _text(directive)
    ]
    responses = [r.read_text() for r in UNITY.rglob("csc.rsp")]
    assert not users or any("System.Net.Http" in r for r in responses), users


def test_unity_window_copies_no_service_limit() -> None:
    """Size, frame count and fps bounds come from the daemon's status, not from numbers
    written into the window (it once let sizes go to 2048 while the service stops at 1024)."""
    copied = {"64", "240", "1024", "2048", "60", "60f", "10f"}
    window = sorted((UNITY / "Editor").glob("Animate*.cs"))
    assert len(window) >= 4, window  # the window, its form, its quote, its job
    literals = [
        f"{_text(n)} at {path.name}:{n.start_point[0] + 1}"
        for path in window
        for kind in ("integer_literal", "real_literal")
        for n in _nodes(_tree(path), kind)
        if _text(n) in copied
    ]
    assert not literals, literals
    assert "limits" in _class_fields(UNITY / "Editor" / "Messages.cs", "StatusReply")
    assert _class_fields(UNITY / "Editor" / "Messages.cs", "Limits") == [
        "size",
        "frame_count",
        "fps",
        "seconds",
    ]


def test_unity_registration_names_only_the_folder_and_engine() -> None:
    """Registering again must not reset a project's settings: the body carries no target."""
    assert _class_fields(UNITY / "Editor" / "Messages.cs", "ProjectBody") == ["root", "engine"]
