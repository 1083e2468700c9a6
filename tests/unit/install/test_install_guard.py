"""The guard for names from outside, checked at the moment of writing."""

from __future__ import annotations

import uuid
from pathlib import Path, PurePosixPath

import pytest

from companion.install.errors import NotInstallable, UnsafeName
from companion.install.safety.names import confined, inside, output_names
from companion.install.safety.ownership import Owner
from companion.install.safety.policy import refusal
from companion.install.tree import Tree
from companion.store import Store


@pytest.mark.parametrize(
    "fmt", ["../../x", "/abs/x", "a\x00b", "..\\..\\x", "C:\\x", "spritesheet/../x", ""]
)
def test_unknown_formats_get_no_name(fmt: str) -> None:
    assert output_names([fmt, "spritesheet"], "hero") == [None, "hero.png"]


def test_names_come_from_our_table() -> None:
    names = output_names(["spritesheet", "spritesheet", "godot_pack"], "../hero")
    assert names == ["hero_p0.png", "hero_p1.png", "hero_godot.zip"]


def test_inside_refuses_links_out(tmp_path: Path) -> None:
    target, outside = tmp_path / "target", tmp_path / "outside"
    target.mkdir()
    outside.mkdir()
    (target / "sub").symlink_to(outside)
    (target / "file.png").symlink_to(outside / "x.png")
    for relative in ("sub/a.png", "file.png", "../x.png", "/etc/passwd"):
        with pytest.raises(UnsafeName):
            inside(target, relative)
    assert inside(target, "ok/a.png") == target.resolve() / "ok" / "a.png"


def test_confined_follows_links_and_stays_in_the_root(tmp_path: Path) -> None:
    """The one confinement check (a project's target and inbox, a request's folder and
    picture, a drop's target, an install's folders): links resolved, NUL refused."""
    root, outside = tmp_path / "project", tmp_path / "outside"
    (root / "art").mkdir(parents=True)
    outside.mkdir()
    (root / "away").symlink_to(outside)
    (root / "back").symlink_to(root / "art")
    assert confined(root, "art/hero.png") == root.resolve() / "art" / "hero.png"
    assert confined(root, "back") == root.resolve() / "art"
    assert confined(root, root / "art") == root.resolve() / "art"  # absolute, inside
    assert confined(root, ".") == root.resolve()
    for path in ("away", "away/x.png", "../outside", "/etc", "art/../..", "a\x00b"):
        assert confined(root, path) is None, path
    assert confined(root, outside) is None
    # A root given through a link is the folder it leads to.
    (tmp_path / "link").symlink_to(root)
    assert confined(tmp_path / "link", "art") == root.resolve() / "art"


def test_tree_checks_paths_when_it_moves_not_when_it_was_planned(tmp_path: Path) -> None:
    """A link put in the target after the plan was sealed is still never followed."""
    target, outside = tmp_path / "project" / "anims", tmp_path / "outside"
    outside.mkdir()
    tree = Tree(root=tmp_path / "staging" / "tree")
    tree.write("hero/hero.tres", "[gd_resource]\n")
    tree.seal()
    target.mkdir(parents=True)
    (target / "hero").symlink_to(outside)
    with pytest.raises(NotInstallable, match="outside"):
        tree.apply(target)
    assert not any(outside.iterdir())


def test_only_the_companions_own_unchanged_files_are_replaced(tmp_path: Path) -> None:
    store = Store(tmp_path / "books.db")
    target = tmp_path / "anims"
    target.mkdir()
    first = Owner(store, str(uuid.uuid4()), "hero")
    mine = target / "hero.png"
    mine.write_bytes(b"v1")
    first.claim(mine)
    again = Owner(store, str(uuid.uuid4()), "hero")  # the same animation made again
    other = Owner(store, str(uuid.uuid4()), "villain")
    assert again.refusal(mine) is None
    assert "another animation" in (other.refusal(mine) or "")
    mine.write_bytes(b"edited by the user")
    assert "changed since" in (again.refusal(mine) or "")
    users = target / "user.png"
    users.write_bytes(b"user")
    assert "not written by the companion" in (again.refusal(users) or "")
    store.close()


@pytest.mark.parametrize(
    "engine,path,allowed",
    [
        ("godot", "hero/hero.tres", True),
        ("godot", "hero/hero.png", True),
        ("godot", "addons/x/plugin.gd", False),
        ("godot", "project.godot", False),
        ("godot", "bin/lib.gdextension", False),
        ("godot", ".godot/x.png", False),
        ("unity", "Assets/A/hero.anim", True),
        ("unity", "Assets/A/Editor/Evil.cs", False),
        ("unity", "Assets/Plugins/evil.dll", False),
        ("unity", "Assets/A/x.asmdef", False),
        ("unity", "Assets/Plugins/x.bundle/Contents/x.png", False),
    ],
)
def test_pack_policy(engine: str, path: str, allowed: bool) -> None:
    assert (refusal(engine, PurePosixPath(path)) is None) == allowed
