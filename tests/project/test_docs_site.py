"""The documentation site builds in strict mode (a broken link, a missing page or an
anchor that is not there fails), and its command-line page is the parser's own help."""

from __future__ import annotations

import argparse
import html
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO

ROOT = REPO


def _command_paths(parser: argparse.ArgumentParser, path: str) -> list[str]:
    found = [path]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += _command_paths(child, f"{path} {name}")
    return found


def test_the_site_builds_strict_with_every_commands_help(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    cli = html.unescape((site / "cli" / "index.html").read_text(encoding="utf-8"))
    from companion.cli.main import build_parser

    commands = _command_paths(build_parser(), "companion")
    assert len(commands) > 30
    for command in commands:
        assert f"usage: {command}" in cli, command
    # Every page of docs/ is in the site, and the README's pictures and documents with it.
    for page in (ROOT / "docs").glob("*.md"):
        built = site / "index.html" if page.stem == "index" else site / page.stem / "index.html"
        assert built.exists(), page.name
    assert (site / "openapi.json").exists() and (site / "images" / "godot-dock.png").exists()
    assert not (site / "hooks").exists()


def test_a_broken_link_fails_the_strict_build(tmp_path: Path) -> None:
    """The strict setting really is in force: the same configuration over a page with a
    link to a missing page refuses to build."""
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("images", "*.json"))
    (docs / "openapi.json").write_text("{}")
    (docs / "images").mkdir()
    (docs / "images" / "godot-dock.png").write_bytes(b"")
    (docs / "index.md").write_text("# x\n\n[gone](no-such-page.md)\n")
    config = (ROOT / "mkdocs.yml").read_text().replace("docs/hooks/", f"{docs}/hooks/")
    (tmp_path / "mkdocs.yml").write_text(config)
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode != 0 and "no-such-page.md" in done.stderr
