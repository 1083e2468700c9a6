"""The command line as a package: every flag helped, help that loads no command code
(circles and layers of the whole package: tests/project/test_layout.py)."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

from companion.api.schema import ExportFormat
from companion.api.schema.export import Pivot
from companion.cli import options
from companion.cli.main import build_parser
from companion.cli.options import DEFAULT_EXTRUDE, DEFAULT_PADDING, FORMAT_NAMES, PIVOTS
from companion.media.formats.sheet import DEFAULT_SPACING, MAX_SHEET_SIDE, MAX_SPACING
from tests.support.paths import REPO

PACKAGE = REPO / "companion"


def parsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(parser.prog, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                found += parsers(child)
    return found


def test_every_flag_and_command_has_help() -> None:
    missing = []
    for prog, parser in parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._VersionAction):
                continue
            if isinstance(action, argparse._SubParsersAction):
                missing += [f"{prog} {c.dest}" for c in action._choices_actions if not c.help]
                continue
            if not action.help:
                missing.append(f"{prog} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def test_value_lists_match_the_schema_and_show_whole_in_help() -> None:
    assert list(FORMAT_NAMES) == [f.value for f in ExportFormat]
    assert set(PIVOTS) == {p.value for p in Pivot}
    assert (DEFAULT_SPACING.padding, DEFAULT_SPACING.extrude) == (DEFAULT_PADDING, DEFAULT_EXTRUDE)
    assert (options.MAX_SPACING, options.MAX_SHEET_SIDE) == (MAX_SPACING, MAX_SHEET_SIDE)
    env = {**os.environ, "COLUMNS": "80"}
    shown = subprocess.run(
        [sys.executable, "-m", "companion", "animate", "--help"],
        capture_output=True, text=True, timeout=60, env=env,
    ).stdout  # fmt: skip
    words = set(shown.replace(",", " ").replace("(", " ").replace(")", " ").split())
    assert set(FORMAT_NAMES) <= words and set(PIVOTS) <= words
    for flag in ("--prompt", "--seed", "--model", "--pixels-per-unit", "--pivot"):
        assert flag in shown


def test_help_imports_no_command_code() -> None:
    probe = (
        "import sys\n"
        "from companion.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = ('pydantic', 'aiohttp', 'av', 'numpy', 'PIL', 'rich', 'yaml',\n"
        "         'companion.api', 'companion.media', 'companion.jobs', 'companion.store')\n"
        "plain = ('companion.api', 'companion.api.formats')  # the formats table: no pydantic\n"
        "print(sorted(m for m in sys.modules if m not in plain and (m.split('.')[0] in heavy\n"
        "      or any(m.startswith(h) for h in heavy if '.' in h))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip().splitlines()[-1] == "[]", result.stderr


def test_every_module_stands_in_a_layer() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py"]


def test_readme_is_self_contained_and_tells_the_sandbox_motion() -> None:
    from companion.media.synth import KEYWORDS

    root = PACKAGE.parent
    readme = (root / "README.md").read_text()
    pages = [readme, *(page.read_text() for page in (root / "docs").glob("*.md"))]
    assert not [page for page in pages if "../shared" in page or "shared/spec" in page]
    for linked in ("docs/service.md", "docs/openapi.json"):
        assert linked in readme and (root / linked).exists()
    sandbox = (root / "docs" / "sandbox.md").read_text()
    motion = sandbox[sandbox.index("**Motion.**") : sandbox.index("**Models and inputs.**")]
    assert "whole input picture" in motion
    for words in KEYWORDS.values():
        for word in words:
            assert f"`{word}`" in motion, word


def test_help_never_cuts_a_flag_and_lists_what_it_offers() -> None:
    from companion.sandbox.faults import PROFILES

    assert options.FAULT_PROFILES == PROFILES
    env = {**os.environ, "COLUMNS": "80"}

    def help_of(*command: str) -> str:
        return subprocess.run(
            [sys.executable, "-m", "companion", *command, "--help"],
            capture_output=True, text=True, timeout=60, env=env,
        ).stdout  # fmt: skip

    for command in (("export",), ("animate",), ("jobs", "add"), ("sandbox",), ("quote",)):
        shown = help_of(*command)
        broken = [line for line in shown.splitlines() if re.search(r"[a-z]-$", line)]
        assert not broken, (command, broken)
    assert "--fps" in help_of("export")
    # A one-click animation is sampled by frame count only: --fps is not offered there.
    assert "--fps" not in help_of("animate") and "--fps" not in help_of("jobs", "add")
    assert "1080p" in help_of("animate") and "dropped-create" in help_of("sandbox")
