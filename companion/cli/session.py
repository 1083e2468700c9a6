"""A command's time with the service: settings, the endpoint (the configured service
or, with no key, the embedded sandbox), one client, and every expected failure turned
into one line with its exit code."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from companion import CompanionError
from companion.api.errors import (
    ApiStatusError,
    DeadlineExceededError,
    TransportError,
    WaitTimeoutError,
)
from companion.cli.errors import (
    CliError,
    InputFailure,
    ServiceRefused,
    UsageError,
    as_cli_error,
    say,
)
from companion.cli.parsers.base import PARSED
from companion.settings.config import Settings, load_settings
from companion.settings.endpoint import Endpoint
from companion.settings.errors import ConfigError

if TYPE_CHECKING:
    from companion.api.client import Client

T = TypeVar("T")

BANNER = (
    "companion: no API key configured; using the embedded sandbox "
    "(set COMPANION_API_KEY and COMPANION_BASE_URL for the service)"
)
# The command (its argument list, new at each run of main) the banner was said for: once
# a command, however often it opens the service.
_BANNER_SAID: list[object] = []
HINTS = {
    401: "check COMPANION_API_KEY (or api_key in config.yaml)",
    402: "add credits to the account",
    403: "the key or the account may not do this; see: companion account",
    429: "the account's limits were reached; try again later",
    500: "the service failed; try again later",
    503: "the service is unavailable; try again later",
}


class _Retries(logging.Filter):
    """Only what a person waiting wants to see: each retry (attempt, wait, why) and each
    interrupted download as it happens, not the pacing of every call."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.name == "companion.api.download" or str(record.msg).startswith("retrying")


class _Say(logging.Handler):
    """To whatever stderr is at that moment (a progress bar draws above it)."""

    def emit(self, record: logging.LogRecord) -> None:
        say(self.format(record))


def show_retries() -> None:
    """Retries on stderr as they happen, instead of silence until the last one fails."""
    logger = logging.getLogger("companion.api")
    if any(isinstance(f, _Retries) for h in logger.handlers for f in h.filters):
        return
    handler = _Say()
    handler.setFormatter(logging.Formatter("companion: %(message)s"))
    handler.addFilter(_Retries())
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # a daemon's own logging (serve) is configured elsewhere


def _banner_said() -> bool:
    """Whether this command said the banner already (and, if not, that it now does)."""
    command = PARSED[-1] if PARSED else None
    if command is not None and _BANNER_SAID and _BANNER_SAID[0] is command:
        return True
    _BANNER_SAID[:] = [command]
    return False


def settings() -> Settings:
    try:
        return load_settings()
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc


def explain(exc: BaseException, where: str = "the service") -> CliError:
    """One line for an expected failure of the service or the way to it."""
    if isinstance(exc, ConfigError):
        return UsageError(str(exc))
    if isinstance(exc, ApiStatusError):
        hint = HINTS.get(exc.status, "")
        return ServiceRefused(f"{exc}" + (f"; {hint}" if hint else ""))
    if isinstance(exc, WaitTimeoutError):
        return InputFailure(f"{exc}; run the same command again to go on waiting")
    if isinstance(exc, TransportError | DeadlineExceededError):
        return InputFailure(
            f"cannot reach {where} ({exc}); check COMPANION_BASE_URL and the network, "
            "then run the same command again"
        )
    if isinstance(exc, CompanionError):
        return as_cli_error(exc)
    raise exc


def with_service(
    job: Callable[[Client, Endpoint, Settings], Awaitable[T]], current: Settings | None = None
) -> T:
    """Run `job` against the endpoint; service failures become CliErrors."""
    # The event loop, the client and the sandbox load here, only for the commands that
    # talk to the service: the ones that read the books or the settings start in a tenth.
    import asyncio

    from companion.runtime import open_client, open_endpoint

    chosen = current or settings()
    label = chosen.base_url or "the service"
    show_retries()

    async def main() -> T:
        async with open_endpoint(chosen) as endpoint:
            if endpoint.sandbox and not _banner_said():
                say(BANNER)
            async with open_client(endpoint, chosen.retry_attempts) as client:
                return await job(client, endpoint, chosen)

    try:
        return asyncio.run(main())
    except CompanionError as exc:
        raise explain(exc, label) from exc
