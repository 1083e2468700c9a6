"""`companion plugin install|uninstall|status|pack` on project folders, without an editor:
what lands where, what stays the user's, and the release artifacts' layout, read with
readers that are not ours (json, zipfile, tarfile, Pillow, tree-sitter C#)."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
import tree_sitter_c_sharp
from PIL import Image
from tree_sitter import Language, Parser

from companion import __version__
from companion.install.editor_plugins import install, source, uninstall
from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.daemon import DaemonThread
from tests.support.godot import older_addon
from tests.support.paths import REPO
from tests.support.plugin_script import ScriptedPlugin

OTHER_SETTINGS = """; Engine configuration file.

config_version=5

[application]

config/name="My Game"
run/main_scene="res://main.tscn"

[editor_plugins]

enabled=PackedStringArray("res://addons/other/plugin.cfg")

[rendering]

textures/canvas_textures/default_texture_filter=0
"""


def companion(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COMPANION_HOME": str(home)}
    env.pop("COMPANION_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def godot_project(folder: Path, text: str = OTHER_SETTINGS) -> Path:
    folder.mkdir(parents=True)
    (folder / "project.godot").write_text(text)
    return folder


def unity_project(folder: Path, manifest: dict[str, object]) -> Path:
    for sub in ("Assets", "ProjectSettings", "Packages"):
        (folder / sub).mkdir(parents=True)
    (folder / "Packages" / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return folder


@pytest.mark.slow
def test_godot_install_update_and_uninstall_keep_the_users_settings_and_files(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    game = godot_project(tmp_path / "game")
    _, first = install("godot", game, older_addon(tmp_path))
    assert "addons/companion/retired.gd" in first.added
    settings = (game / "project.godot").read_text()
    # Only the enabled line changed; the other plugin stays enabled.
    assert settings == OTHER_SETTINGS.replace(
        '"res://addons/other/plugin.cfg")',
        '"res://addons/other/plugin.cfg", "res://addons/companion/plugin.cfg")',
    )
    # Files Godot makes beside ours, and a file of the user's in the addon folder.
    (game / "addons/companion/plugin.gd.uid").write_text("uid://abc\n")
    (game / "addons/companion/retired.gd.uid").write_text("uid://def\n")
    (game / "addons/companion/my_notes.txt").write_text("mine")

    done = companion(home, "plugin", "install", "godot", str(game))
    assert done.returncode == 0, done.stderr
    assert f"updated the godot plugin 0.0.9 -> {__version__}" in done.stdout
    assert "updated: addons/companion/dock.gd" in done.stdout
    assert "updated: addons/companion/plugin.cfg" in done.stdout
    assert "removed: addons/companion/retired.gd" in done.stdout
    assert "kept (changed or made by you): addons/companion/my_notes.txt" in done.stdout
    assert not (game / "addons/companion/retired.gd").exists()
    assert not (game / "addons/companion/retired.gd.uid").exists()
    assert (game / "addons/companion/plugin.gd.uid").exists()
    assert (game / "project.godot").read_text().count("res://addons/companion/plugin.cfg") == 1
    for name in ("dock.gd", "plugin.cfg", "icon.png"):
        assert (game / "addons/companion" / name).read_bytes() == (
            source("godot") / name
        ).read_bytes()

    # The companion that installed it is recorded, absolute, for the editor's Start daemon
    # (which ran `companion` from PATH, absent after the README's virtual-environment
    # install): here `python -m companion`, this interpreter.
    recorded = json.loads((home / "command.json").read_text())["command"]
    assert recorded == [str(Path(sys.executable).absolute()), "-m", "companion"], recorded
    assert f"Start daemon in the editor runs: {' '.join(recorded)} serve" in done.stdout
    version = subprocess.run([*recorded, "--version"], capture_output=True, text=True, timeout=60)
    assert __version__ in version.stdout + version.stderr, version
    again = companion(home, "plugin", "install", "godot", str(game))
    assert "already current; nothing changed" in again.stdout, again.stdout
    listed = companion(home, "projects", "list", "--json")
    assert [p["engine"] for p in json.loads(listed.stdout)["data"]] == ["godot"]
    state = json.loads(companion(home, "plugin", "status", "godot", str(game), "--json").stdout)
    assert state["current"] and state["enabled"] and state["registered"], state
    assert state["installed"] == __version__

    # A file of ours the user edited is never overwritten: the install stops first.
    (game / "addons/companion/dock.gd").write_text("# my change\n")
    (game / "addons/companion/plugin.cfg").write_text(
        (source("godot") / "plugin.cfg").read_text().replace(__version__, "0.0.8")
    )
    refused = companion(home, "plugin", "install", "godot", str(game))
    assert refused.returncode == 2 and "addons/companion/dock.gd" in refused.stderr
    assert (game / "addons/companion/dock.gd").read_text() == "# my change\n"
    state = json.loads(companion(home, "plugin", "status", "godot", str(game), "--json").stdout)
    assert not state["current"] and "dock.gd" in state["changed_files"]
    edited = ["addons/companion/dock.gd", "addons/companion/plugin.cfg"]
    assert state["blocking_files"] == edited, state
    # Its advice is what the install takes: the edited files moved away first, named.
    said = companion(home, "plugin", "status", "godot", str(game)).stdout
    advice = [line for line in said.splitlines() if "to fix:" in line]
    assert len(advice) == 1 and f"move {', '.join(edited)} out of" in advice[0], said
    assert advice[0].endswith(f"then run: companion plugin install godot {game.resolve()}")

    _, gone = uninstall("godot", game)
    assert "addons/companion/dock.gd" in gone.kept and "addons/companion/my_notes.txt" in gone.kept
    assert sorted(p.name for p in (game / "addons/companion").iterdir()) == [
        "dock.gd",
        "my_notes.txt",
        "plugin.cfg",
    ]
    assert (game / "project.godot").read_text() == OTHER_SETTINGS


def test_a_fresh_project_gets_the_section_and_uninstall_leaves_it_as_it_was(
    tmp_path: Path,
) -> None:
    text = 'config_version=5\n\n[application]\n\nconfig/name="Fresh"\n'
    game = godot_project(tmp_path / "fresh", text)
    install("godot", game)
    assert (
        'enabled=PackedStringArray("res://addons/companion/plugin.cfg")'
        in (game / "project.godot").read_text()
    )
    uninstall("godot", game)
    assert not (game / "addons").exists()
    assert "companion" not in (game / "project.godot").read_text()
    assert (game / "project.godot").read_text().startswith(text)


@pytest.mark.parametrize("engine", ["godot", "unity"])
def test_anything_not_a_project_of_that_engine_is_refused(tmp_path: Path, engine: str) -> None:
    home = tmp_path / "home"
    wrong = (
        unity_project(tmp_path / "u", {}) if engine == "godot" else godot_project(tmp_path / "g")
    )
    done = companion(home, "plugin", "install", engine, str(wrong))
    name = "a Godot project" if engine == "godot" else "a Unity project"
    assert done.returncode == 2 and f"is not {name}" in done.stderr, done.stderr
    assert sorted(p.name for p in wrong.iterdir()) == sorted(
        ["project.godot"] if engine == "unity" else ["Assets", "Packages", "ProjectSettings"]
    )
    missing = companion(home, "plugin", "install", engine, str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "no such folder" in missing.stderr
    marker = godot_project(tmp_path / "marked") / "project.godot"
    a_file = companion(home, "plugin", "install", engine, str(marker))
    assert a_file.returncode == 2 and "project.godot is a file" in a_file.stderr
    assert f"({marker.parent})" in a_file.stderr


def test_unity_install_embeds_the_package_under_packages(tmp_path: Path) -> None:
    home = tmp_path / "home"
    manifest = {
        "dependencies": {
            "com.unity.2d.sprite": "1.0.0",
            "dev.companion.animate": "file:../../checkout/engine_plugins/unity",
        },
        "scopedRegistries": [],
    }
    game = unity_project(tmp_path / "game", manifest)
    done = companion(home, "plugin", "install", "unity", str(game))
    assert done.returncode == 0, done.stderr
    written = json.loads((game / "Packages" / "manifest.json").read_text())
    assert written == {"dependencies": {"com.unity.2d.sprite": "1.0.0"}, "scopedRegistries": []}
    embedded = game / "Packages" / "dev.companion.animate"
    package = json.loads((embedded / "package.json").read_text())
    assert package["name"] == "dev.companion.animate" and package["version"] == __version__
    assert not list((game / "Assets").iterdir())
    shipped = sorted(p.relative_to(source("unity")) for p in source("unity").rglob("*"))
    assert shipped == sorted(
        p.relative_to(embedded) for p in embedded.rglob("*") if p.name != ".companion-install.json"
    )
    state = json.loads(companion(home, "plugin", "status", "unity", str(game), "--json").stdout)
    assert state["current"] and state["registered"]
    companion(home, "plugin", "uninstall", "unity", str(game))
    assert not embedded.exists()


# Unity's built-in module of each API the package's C# uses (Unity's manual, "Built-in
# packages"): a project that disabled one would not compile the package without it.
MODULE_OF = {
    "UnityWebRequest": "com.unity.modules.unitywebrequest",
    "UnityWebRequestAsyncOperation": "com.unity.modules.unitywebrequest",
    "DownloadHandlerBuffer": "com.unity.modules.unitywebrequest",
    "UploadHandlerRaw": "com.unity.modules.unitywebrequest",
    "JsonUtility": "com.unity.modules.jsonserialize",
    "GUILayout": "com.unity.modules.imgui",
    "GUI": "com.unity.modules.imgui",
    "GUIContent": "com.unity.modules.imgui",
    "GUIStyle": "com.unity.modules.imgui",
    "AnimationClip": "com.unity.modules.animation",
}


def test_the_unity_package_follows_the_upm_layout_and_declares_its_modules() -> None:
    package = source("unity")
    manifest = json.loads((package / "package.json").read_text())
    assert manifest["version"] == __version__
    assert re.fullmatch(r"[a-z0-9.-]+", manifest["name"]) and manifest["unity"] == "2021.3"
    # Every identifier of the C#, read by the tree-sitter C# grammar.
    parser = Parser(Language(tree_sitter_c_sharp.language()))
    used: set[str] = set()
    for cs in package.rglob("*.cs"):
        tree = parser.parse(cs.read_bytes())
        stack = [tree.root_node]
        while stack:
            node = stack.pop()
            if node.type == "identifier" and node.text is not None:
                used.add(node.text.decode())
            stack.extend(node.children)
    needed = {MODULE_OF[name] for name in used if name in MODULE_OF}
    assert {
        "com.unity.modules.unitywebrequest",
        "com.unity.modules.jsonserialize",
        "com.unity.modules.imgui",
    } <= needed
    assert needed <= set(manifest["dependencies"]), needed - set(manifest["dependencies"])
    for sample in manifest["samples"]:
        assert sample["path"].startswith("Samples~/") and (package / sample["path"]).is_dir()
        assert sample["displayName"] and sample["description"]
    license_text = (package / "LICENSE.md").read_text()
    assert re.search(r"Copyright \(c\) 20\d\d \w+", license_text)
    assert f"## [{__version__}]" in (package / "CHANGELOG.md").read_text()
    # Every asset Unity imports from the package has its .meta (an immutable package
    # cannot be given one later); Samples~ is not imported, so it has none.
    for path in package.rglob("*"):
        if "Samples~" in path.parts or path.suffix == ".meta" or path.name == "__init__.py":
            continue
        assert path.with_name(path.name + ".meta").is_file(), path


def test_pack_makes_the_asset_library_zip_and_the_unity_tarball(tmp_path: Path) -> None:
    done = companion(tmp_path / "home", "plugin", "pack", "--out", str(tmp_path / "dist"))
    assert done.returncode == 0, done.stderr
    made = sorted((tmp_path / "dist").iterdir())
    assert [p.name for p in made] == [
        f"companion-godot-{__version__}.zip",
        f"dev.companion.animate-{__version__}.tgz",
    ]
    with zipfile.ZipFile(made[0]) as archive:
        names = archive.namelist()
        assert {n.split("/")[0] for n in names} == {"addons"}
        assert all(n.startswith("addons/companion/") for n in names)
        cfg = archive.read("addons/companion/plugin.cfg").decode()
        assert f'version="{__version__}"' in cfg
        assert re.search(
            r"Copyright \(c\) 20\d\d \w+", archive.read("addons/companion/LICENSE").decode()
        )
        icon = Image.open(io.BytesIO(archive.read("addons/companion/icon.png")))
        assert icon.format == "PNG" and icon.size[0] == icon.size[1] >= 64
        assert (
            archive.read("addons/companion/dock.gd") == (source("godot") / "dock.gd").read_bytes()
        )
    with tarfile.open(made[1]) as archive:
        names = archive.getnames()
        assert all(n.startswith("package/") for n in names)
        for needed in ("package.json", "LICENSE.md", "CHANGELOG.md", "Samples~/Pictures/hero.png"):
            assert f"package/{needed}" in names, needed
    # The same sources give the same bytes.
    first = [p.read_bytes() for p in made]
    companion(tmp_path / "home", "plugin", "pack", "--out", str(tmp_path / "dist"))
    assert [p.read_bytes() for p in made] == first


def test_a_repository_download_holds_only_what_belongs() -> None:
    """`.gitattributes` export-ignore: `git archive` (what a forge's download is) of the
    checkout holds the package and the plugins, not the tests, benches, CI or samples."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "archive", "--worktree-attributes", "HEAD"],
        cwd=REPO,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(listed)) as archive:
        top = {name.split("/")[0] for name in archive.getnames()}
    assert top == {
        "companion", "engine_plugins", "LICENSE", "README.md", "pyproject.toml", "setup.py"
    }  # fmt: skip


@pytest.mark.slow
def test_a_wheel_carries_both_plugins(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
         "-w", str(tmp_path), str(REPO)],
        check=True, capture_output=True, timeout=240,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("companion-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for name in (
        "companion/engine_plugins/godot/addons/companion/plugin.cfg",
        "companion/engine_plugins/godot/addons/companion/dock.tscn",
        "companion/engine_plugins/godot/addons/companion/icon.png",
        "companion/engine_plugins/unity/package.json",
        "companion/engine_plugins/unity/Editor/AnimateWindow.cs.meta",
        "companion/engine_plugins/unity/Samples~/Pictures/hero.png",
    ):
        assert name in names, name


def test_every_plugin_says_the_packages_version() -> None:
    """The handshake compares these with the daemon's version: they must be the package's."""
    cfg = (source("godot") / "plugin.cfg").read_text()
    assert f'version="{__version__}"' in cfg
    client = (source("unity") / "Editor" / "DaemonClient.cs").read_text()
    assert f'public const string PluginVersion = "{__version__}";' in client
    assert json.loads((source("unity") / "package.json").read_text())["version"] == __version__


def test_the_daemon_logs_a_plugin_of_another_version_once(
    make_sandbox: Callable[..., SandboxThread],
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    sandbox = make_sandbox()
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    game = godot_project(tmp_path / "game")
    try:
        with caplog.at_level(logging.WARNING, logger="companion.daemon"):
            for version in (__version__, "0.0.1", "0.0.1", "bad;v", "9" * 40):
                plugin = ScriptedPlugin(daemon.home, "unity", game, version=version)
                status = plugin._call("GET", "/api/v1/status")
                assert status.status == 200 and status.json["version"] == __version__
    finally:
        daemon.stop()
    told = [r.getMessage() for r in caplog.records if "plugin" in r.getMessage()]
    assert told == [
        f"the unity plugin 0.0.1 talks to companion {__version__}; update it in its project "
        "with: companion plugin install unity PROJECT"
    ]
