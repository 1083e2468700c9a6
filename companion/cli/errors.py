"""How a command fails: one line on stderr and an exit code that says whose move it is.

    0  done
    1  the work failed: an input file or video cannot be used, a task failed, the
       daemon is not running
    2  the command line is wrong: an option, its value, or a combination of options
       (nothing was spent)
    3  the service refused: key, credits, limits, or a request it would not take
    4  waiting for your approval: a budget in config.yaml holds the job (nothing was
       spent); the message names the command that approves it
  130  interrupted (Ctrl-C); the same command again resumes where it stopped
  141  the reader of stdout went away (`companion jobs list | head -1`); the rest of
       the output is dropped, quietly, as for any command killed by SIGPIPE

Each code is a class of the tree; the other families' errors carry theirs (exit_code):

    CompanionError
    └── CliError                a failure shown as one line (code 1 unless given)
        ├── UsageError          2: options that contradict each other or the bounds
        ├── InputFailure        1: an input file, a video or a task that cannot be used
        │   └── NotRunning      no daemon answers for this COMPANION_HOME
        ├── ServiceRefused      3: the service said no
        └── AwaitingApproval    4: held by a budget, nothing spent

This module is imported on every start, so it imports nothing heavy."""

from __future__ import annotations

import sys

from companion import CompanionError

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_REFUSED = 3
EXIT_WAITING = 4
EXIT_INTERRUPTED = 130
EXIT_CLOSED_PIPE = 141


class CliError(CompanionError):
    """A failure shown to the user as one line; the exit code rides along."""

    code = EXIT_FAILED
    label = "error"  # how the line starts: companion: error: ...

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def exit_code(self) -> int:  # type: ignore[override]
        return self.code


def as_cli_error(exc: CompanionError) -> CliError:
    """Any of the companion's own errors as one line, its exit code read from the tree:
    each family (and class) says whose move it is."""
    return exc if isinstance(exc, CliError) else CliError(str(exc), exc.exit_code)


class UsageError(CliError):
    """Options that contradict each other, the spec's bounds or the live models."""

    code = EXIT_USAGE


class InputFailure(CliError):
    """An input file, a video or a task that cannot be used as it is."""

    code = EXIT_FAILED


class NotRunning(InputFailure):
    """No daemon answers for this COMPANION_HOME."""


class ServiceRefused(CliError):
    """The service (or the sandbox) said no: key, credits, limits, or the request."""

    code = EXIT_REFUSED


class AwaitingApproval(CliError):
    """Held by a budget: nothing failed and nothing was spent; approving goes on."""

    code = EXIT_WAITING
    label = "waiting for approval"


def say(message: str) -> None:
    """One line for the user on stderr, never wrapped and never on stdout."""
    print(message, file=sys.stderr, flush=True)


def fail(exc: CliError) -> int:
    say(f"companion: {exc.label}: {exc}")
    return exc.code
