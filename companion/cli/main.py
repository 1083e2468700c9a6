"""companion: turn still images into game-ready animations.

Exit codes: 0 done; 1 the work failed (an input file, a video, a task, the daemon or
the network); 2 the command line is wrong (nothing was spent); 3 the service refused
(key, credits, limits, or the request); 4 waiting for approval (a budget holds the
job; nothing was spent); 130 interrupted (run the same command again to resume); 141 the
reader of the output went away (`companion jobs list | head -1`): the rest is not printed."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from companion import CompanionError, __version__
from companion.cli.errors import EXIT_CLOSED_PIPE, EXIT_INTERRUPTED, as_cli_error, fail, say
from companion.cli.parsers import local, making, remote
from companion.cli.parsers.base import PARSED, OneLineParser

# Handlers are named, not imported: `companion --help` loads no command's code.
Handler = str | Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="companion",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    making.add_export(commands)
    making.add_recut(commands)
    making.add_clips(commands)
    making.add_animate(commands)
    making.add_character(commands)
    remote.add_service_commands(commands)
    making.add_jobs(commands)
    remote.add_team(commands)
    local.add_local(commands)
    return parser


def resolve(handler: Handler) -> Callable[[argparse.Namespace], int]:
    if callable(handler):
        return handler
    module, _, function = handler.partition(":")
    found: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), function)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    PARSED[:] = [given]
    args = build_parser().parse_args(given)
    try:
        code = int(resolve(args.handler)(args))
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        return code
    except BrokenPipeError:
        return _reader_gone()
    except CompanionError as exc:
        return fail(as_cli_error(exc))
    except KeyboardInterrupt:
        say("companion: interrupted; run the same command again to go on (nothing is paid twice)")
        return EXIT_INTERRUPTED


def _reader_gone() -> int:
    """The reader closed our stdout (`| head -1`): stop quietly, as a process killed by
    SIGPIPE would, and point stdout at devnull so the interpreter's last flush is silent."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_CLOSED_PIPE
