"""The map in docs/layout.md, held against the checkout: its tree names every package of
companion/ and of tests/ and every folder the repository keeps at its top, and no folder
it names is gone (under companion/, none that is not a package)."""

from __future__ import annotations

from fnmatch import fnmatch

from tests.support.paths import REPO

MAP = REPO / "docs" / "layout.md"
INDENT = 2  # spaces a level of the tree


def folders_in_the_map(text: str) -> set[str]:
    """The folders the map's tree names, as paths from the repository's root."""
    tree = text.split("```text\n", 1)[1].split("```", 1)[0]
    named: set[str] = set()
    trail: list[str] = []
    for line in tree.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        folder = line.split()[0]
        level = indent // INDENT
        assert folder.endswith("/") and indent % INDENT == 0, f"not a tree line: {line!r}"
        assert level <= len(trail), f"a level skipped: {line!r}"
        del trail[level:]
        trail.append(folder.rstrip("/"))
        named.add("/".join(trail))
    return named


def packages_under(top: str) -> set[str]:
    return {
        p.parent.relative_to(REPO).as_posix()
        for p in (REPO / top).rglob("__init__.py")
        if "__pycache__" not in p.parts
    }


def kept_at_the_top() -> set[str]:
    """The folders at the top of the checkout that the repository keeps: neither hidden
    (git's own, the tools' caches) nor left out by .gitignore (a venv, a build)."""
    lines = (REPO / ".gitignore").read_text().splitlines()
    left_out = [line.strip().strip("/") for line in lines if line.strip().endswith("/")]
    return {
        p.name
        for p in REPO.iterdir()
        if p.is_dir()
        and not p.name.startswith(".")
        and not any(fnmatch(p.name, pattern) for pattern in left_out)
    }


def unmapped(text: str) -> list[str]:
    """The folders the map must name and does not."""
    wanted = packages_under("companion") | packages_under("tests") | kept_at_the_top()
    return sorted(wanted - folders_in_the_map(text))


def gone(text: str) -> list[str]:
    """The folders the map names that are not there (under companion/: not a package)."""
    return sorted(
        folder
        for folder in folders_in_the_map(text)
        if not (REPO / folder).is_dir()
        or (folder.startswith("companion/") and not (REPO / folder / "__init__.py").exists())
    )


def test_the_map_names_every_package_and_none_that_is_gone() -> None:
    text = MAP.read_text(encoding="utf-8")
    assert unmapped(text) == [], "add these folders to the tree in docs/layout.md"
    assert gone(text) == [], "these folders are gone: take them out of docs/layout.md"


def test_the_map_check_sees_a_package_left_out_and_one_made_up() -> None:
    text = MAP.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    landing = next(i for i, line in enumerate(lines) if line.strip().startswith("landing/"))
    assert unmapped("".join(lines[:landing] + lines[landing + 1 :])) == ["companion/jobs/landing"]
    made_up = "    elsewhere/              a package that is not there\n"
    assert gone("".join([*lines[: landing + 1], made_up, *lines[landing + 1 :]])) == [
        "companion/jobs/elsewhere"
    ]
    # Beside the package too: a top folder renamed in the map is both unnamed and gone.
    moved = text.replace("\ntests/ ", "\ntested/", 1)
    assert moved != text and "tests" in unmapped(moved) and "tested" in gone(moved)
