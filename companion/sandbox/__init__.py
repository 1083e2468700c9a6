"""The sandbox: a faithful local emulator of the whole remote service.

It is the embedded default for users without a key, the target of the test suite, and
the way plugin authors work offline. Never imported on the client path except to start
it embedded. The names below load on first use, so the command line can read the fault
profiles (companion.sandbox.faults) for its help without loading the server."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion import front_door

if TYPE_CHECKING:
    from companion.sandbox.account.tiers import TIERS, Limits
    from companion.sandbox.app import SandboxConfig
    from companion.sandbox.server import Sandbox, SandboxThread, serve_forever

_LAZY = {
    "TIERS": "account.tiers",
    "Limits": "account.tiers",
    "Sandbox": "server",
    "SandboxThread": "server",
    "serve_forever": "server",
    "SandboxConfig": "app",
}

__getattr__ = front_door(__name__, globals(), _LAZY)

__all__ = ["TIERS", "Limits", "Sandbox", "SandboxConfig", "SandboxThread", "serve_forever"]
