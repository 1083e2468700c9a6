"""Commands about this machine: the daemon (`serve`, `status`), the agents' door (`mcp`),
the emulator (`sandbox`) and the OpenAPI document."""

from __future__ import annotations

import argparse
import errno
import os
import sys

from companion.cli.errors import InputFailure, UsageError, say
from companion.cli.session import explain, settings, with_service
from companion.settings.config import Settings


def cmd_status(args: argparse.Namespace) -> int:
    from companion.cli.daemon_link import call, daemon_info, refusal

    home = settings().home
    info = daemon_info(home)
    code, state = call(home, "GET", "/api/v1/status")  # a dead daemon is said, not listed
    print(f"daemon {info['version']} (pid {info['pid']}) on http://127.0.0.1:{info['port']}")
    if code == 200 and state.get("reachable") is False:
        print(
            f"service: {state.get('service')} does not answer ({state.get('service_error')}); "
            "work waits in the queue until it does"
        )
    elif code == 200:
        print(f"service: {state.get('service')}, balance {state.get('balance', '?')} credits")
    status, link = call(home, "POST", "/api/v1/status-link", {})
    if status != 201:
        raise InputFailure(f"the daemon gave no status link: {refusal(link)}")
    print(
        f"status page (works once, within {link['expires_in']} s; "
        f"run companion status again for another): {link['url']}"
    )
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import logging

    from companion.api.errors import CompanionApiError
    from companion.daemon.server import run_forever
    from companion.settings.errors import ConfigError

    if args.home is not None:  # before anything reads the settings
        os.environ["COMPANION_HOME"] = str(args.home.expanduser())
    current = settings()
    from companion.settings.endpoint import address_mistake

    mistake = address_mistake(current)
    if mistake is not None:
        raise UsageError(mistake)
    if current.api_key is not None:
        _preflight(current)  # before logging is on: a bad key or address is one line
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        return run_forever(current, args.port)
    except (ConfigError, CompanionApiError) as exc:
        raise explain(exc, current.base_url or "the service") from exc
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(
                f"--port {args.port}: already in use; stop the other daemon "
                "(see: companion status) or give --port 0 for any free port"
            ) from exc
        raise InputFailure(f"the daemon cannot start: {exc}") from exc


def _preflight(current: Settings) -> None:
    """One quick look at the account: a bad key is one line and no daemon; a service
    that does not answer is said, and the daemon starts anyway (work waits for it)."""
    from companion.api.client import Client
    from companion.api.errors import CompanionApiError
    from companion.daemon.reach import unreachable
    from companion.daemon.server import PROBE_POLICY
    from companion.settings.endpoint import Endpoint

    async def look(client: Client, endpoint: Endpoint, chosen: Settings) -> None:
        try:
            await client.get_account(PROBE_POLICY)
        except CompanionApiError as exc:
            if not unreachable(exc):
                raise
            say(
                f"companion: {chosen.base_url} does not answer ({exc}); the daemon starts "
                "anyway, and queued work goes on once the service answers"
            )

    with_service(look, current)


def cmd_mcp(args: argparse.Namespace) -> int:
    import asyncio
    import logging

    from companion.cli.daemon_link import daemon_info
    from companion.cli.errors import NotRunning
    from companion.daemon.mcp.stdio import run

    current = settings()
    try:
        info = daemon_info(current.home)
        found: tuple[int, str] | None = (int(info["port"]), str(info["token"]))
    except NotRunning:
        found = None  # one is started in this process
    # Stdout is the protocol's: every word of the daemon goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    try:
        asyncio.run(run(current, found))
    except KeyboardInterrupt:
        return 0
    return 0


def cmd_openapi(args: argparse.Namespace) -> int:
    from companion.api.openapi import render_openapi

    text = render_openapi()
    if args.out is None:
        sys.stdout.write(text)
        return 0
    if args.out.is_dir():
        raise UsageError(f"--out {args.out}: is a folder; give a file name")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


def cmd_sandbox(args: argparse.Namespace) -> int:
    import asyncio

    from companion.sandbox import Limits, Sandbox, SandboxConfig, serve_forever
    from companion.sandbox.faults import Faults

    try:
        Faults(args.faults)
    except ValueError as exc:
        raise UsageError(f"--faults: {exc}") from exc
    limits = None
    if args.limits:
        try:
            limits = Limits(*(int(v) for v in args.limits.split(",")))
        except (TypeError, ValueError) as exc:
            raise UsageError(
                "--limits takes CONCURRENCY,QUEUE,CREATES,OTHERS (per minute)"
            ) from exc
    config = SandboxConfig(
        api_keys=args.api_key or ["sk-sandbox"],
        read_only_keys=args.read_only_key or [],
        paused_keys=args.paused_key or [],
        ineligible_keys=args.ineligible_key or [],
        disabled_keys=args.disabled_key or [],
        credits=args.credits,
        task_seconds=args.task_seconds,
        tier=args.tier,
        faults=args.faults,
        face=args.face,
        state=args.state,
        url_seconds=args.url_seconds,
        limits=limits,
    )
    asyncio.run(serve_forever(Sandbox(config, args.host, args.port, args.storage_port)))
    return 0
