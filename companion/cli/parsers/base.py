"""What every command's parser shares: help wrapped between words, option errors in one
line (exit code 2), and a command registered with its handler named, not imported."""

from __future__ import annotations

import argparse
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


class OneLineParser(argparse.ArgumentParser):
    """Option errors in one line, like every other failure, with exit code 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", WholeWordsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        say(f"companion: error: {message} (see: {self.prog} --help)")
        raise SystemExit(EXIT_USAGE)


def command(commands: Any, name: str, handler: str, **kw: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(name, **kw)
    parser.set_defaults(handler=handler)
    return parser
