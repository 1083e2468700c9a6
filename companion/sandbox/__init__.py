"""The sandbox: a faithful local emulator of the whole remote service.

It is the embedded default for users without a key, the target of the test suite, and
the way plugin authors work offline. Never imported on the client path except to start
it embedded."""

from companion.sandbox.account.tiers import TIERS, Limits
from companion.sandbox.app import SandboxConfig
from companion.sandbox.server import Sandbox, SandboxThread, serve_forever

__all__ = ["TIERS", "Limits", "Sandbox", "SandboxConfig", "SandboxThread", "serve_forever"]
