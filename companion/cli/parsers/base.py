"""What every command's parser shares: help wrapped between words, option errors in one
line (exit code 2), a command registered with its handler named, not imported, and the
shapes that recur (a command of verbs, --json)."""

from __future__ import annotations

import argparse
import difflib
import sys
import textwrap
from typing import Any, NoReturn

from companion.cli.errors import EXIT_USAGE, say


class WholeWordsFormatter(argparse.HelpFormatter):
    """Help wrapped between words only: a flag such as --pixel-art is never cut at its
    hyphen."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(
            " ".join(text.split()),
            width,
            initial_indent=indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
        )


# The arguments being parsed (main sets them: a caller may parse other than sys.argv).
PARSED: list[list[str]] = []


class OneLineParser(argparse.ArgumentParser):
    """Option errors in one line, like every other failure, with exit code 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", WholeWordsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        # A mistyped flag is named first: argparse would say only what is then missing
        # (--prompt is required) or that "arguments" were not recognised.
        argv = PARSED[-1] if PARSED else sys.argv[1:]
        said = mistyped_flags(self, argv) or f"{message} (see: {self.prog} --help)"
        say(f"companion: error: {said}")
        raise SystemExit(EXIT_USAGE)


def mistyped_flags(root: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """The flags of argv that the command they were given to does not have, each with
    the nearest it has, and where to read its flags; None when every flag is its own."""
    parser = root
    while True:  # down to the command named (companion jobs add: two levels)
        chosen = next(
            (
                action.choices[token]
                for action in parser._actions
                if isinstance(action, argparse._SubParsersAction)
                for token in argv
                if token in action.choices
            ),
            None,
        )
        if chosen is None:
            break
        parser = chosen
    known = list(parser._option_string_actions)
    unknown = []
    for token in argv:
        flag = token.split("=", 1)[0]
        if not flag.startswith("--") or flag == "--" or flag in known:
            continue
        if len([k for k in known if k.startswith(flag)]) == 1:
            continue  # a flag's unique start, which argparse takes for it
        unknown.append(flag)
    if not unknown:
        return None
    said = []
    for flag in dict.fromkeys(unknown):
        near = difflib.get_close_matches(flag, known, n=1, cutoff=0.7)
        said.append(
            f"{flag} is not a flag of {parser.prog}"
            + (f" (did you mean {near[0]}?)" if near else "")
        )
    return "; ".join(said) + f" (see: {parser.prog} --help)"


def command(commands: Any, name: str, handler: str, **kw: Any) -> argparse.ArgumentParser:
    """The command `name`, run by a function of companion.cli.commands that is named,
    not imported (its module loads only when it runs): "module:function", or "module"
    for that module's cmd_<name>."""
    function = handler if ":" in handler else f"{handler}:cmd_{name}"
    parser: argparse.ArgumentParser = commands.add_parser(name, **kw)
    parser.set_defaults(handler=f"companion.cli.commands.{function}")
    return parser


def verbs(commands: Any, name: str, *, dest: str = "verb", **kw: Any) -> Any:
    """A command made of verbs (companion jobs add, run, list...), one of which must be
    given: what its verbs are added to, each with `command`."""
    parser = commands.add_parser(name, **kw)
    return parser.add_subparsers(dest=dest, required=True, metavar="VERB")


def json_flag(parser: argparse.ArgumentParser, help: str = "print one JSON object") -> None:
    parser.add_argument("--json", action="store_true", help=help)
