"""The daemon layer's family of errors under the companion's one root.

CompanionError
└── DaemonError
    ├── Bad                 a request refused: status, code, a message naming the field
    │   └── FilesBusy       the project's files did not answer in time (503 BUSY)
    ├── BodyError           a request's body cannot be used
    ├── BadInput            a named field of a quote or job is wrong (also ValueError)
    ├── CannotReplace       a conflict to replace cannot move aside (also ValueError)
    ├── Refused             a project registration breaks a rule (also ValueError)
    ├── DropError           a drop cannot become a job
    │   └── Incomplete      the dropped file does not decode yet
    ├── PreviewRefused      an output is over a cap or unreadable: no preview
    ├── HomeInUse           another daemon holds this COMPANION_HOME
    ├── AutostartError      a login service file that would not load
    └── CallRefused         the daemon refused an agent tool's call: status, code, message
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion import CompanionError

if TYPE_CHECKING:
    from pathlib import Path

    from aiohttp import web


class DaemonError(CompanionError):
    """Root of what the daemon raises on purpose."""


class Bad(DaemonError):
    """A request refused with a status, a code and a message naming the field."""

    # extra: more fields of the error's answer (a free name to give instead, the move
    # refused).

    def __init__(self, status: int, code: str, message: str, **extra: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra

    def response(self) -> web.Response:
        from aiohttp import web  # here, so that importing the tree stays light

        said = {"code": self.code, "message": self.message, **self.extra}
        return web.json_response({"error": said}, status=self.status)


class FilesBusy(Bad):
    """The project's files did not answer within the bound (503, BUSY)."""

    # The request may still finish its own work (a removal) after the reply.

    def __init__(self, message: str) -> None:
        super().__init__(503, "BUSY", message)


class BodyError(DaemonError):
    """The body cannot be used; `code` and the message go to the client as they are."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class BadInput(DaemonError, ValueError):
    """A named field of the request is wrong; the message starts with its name."""


class CannotReplace(DaemonError, ValueError):
    """A conflict "replace": true cannot move aside; the message names it and what to do."""


class Refused(DaemonError, ValueError):
    """A registration that breaks a rule; the message names the field and the fix."""


class DropError(DaemonError):
    """Why a drop cannot become a job; written to failed/NAME.error.txt."""


class Incomplete(DropError):
    """The file does not decode: damaged, or still being written. Worth another look."""


class PreviewRefused(DaemonError):
    """An output is over a cap or unreadable; no preview is made."""


class HomeInUse(DaemonError):
    """Another daemon holds this COMPANION_HOME; the message names its pid."""

    def __init__(self, home: Path, pid: int | None) -> None:
        who = f"pid {pid}" if pid else "another process"
        super().__init__(
            f"a daemon ({who}) already serves COMPANION_HOME={home}; see: companion status "
            "(stop that one first, or give this one another COMPANION_HOME)"
        )
        self.pid = pid


class AutostartError(DaemonError):
    """A service file that would not load; the message says which line or element."""


class CallRefused(DaemonError):
    """The daemon refused an agent tool's call: its status, code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
