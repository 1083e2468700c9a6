"""One owner of the embedded sandbox's state per COMPANION_HOME at a time.

The embedded sandbox keeps its account (credits, tasks) in COMPANION_HOME/sandbox. Two
processes each running their own copy of it would each load the file, spend on their
own copy and write it back, the last to stop overwriting the other's charges. So the
first process to need it takes COMPANION_HOME/sandbox/owner.lock, runs the sandbox and
writes its address to owner.json; another process with the same home then uses that
sandbox while its owner is a daemon (which stays up), or waits for a short-lived owner
(another command) to finish before taking over. The operating system lets go of the
lock when the owner ends, however it ends."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from companion.settings.filelock import lock_file, unlock_file

log = logging.getLogger(__name__)

POLL_SECONDS = 0.2


def _owner(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / "owner.json").read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("base_url"), str) else None


@asynccontextmanager
async def embedded_sandbox(home: Path, api_key: str, *, long_lived: bool) -> AsyncIterator[str]:
    """The base URL of this home's embedded sandbox: one this process runs (and owns
    while the block lasts), or the one a daemon of the same home runs."""
    folder = home / "sandbox"
    folder.mkdir(parents=True, exist_ok=True)
    handle = (folder / "owner.lock").open("a+")
    said = False
    owned = False
    try:
        while not owned:
            try:
                lock_file(handle)
                owned = True
            except OSError:
                owner = _owner(folder)
                if owner is not None and owner.get("long_lived"):
                    break  # a daemon's sandbox: use it
                if not said:
                    log.warning(
                        "another companion process (pid %s) is using the embedded sandbox "
                        "of %s; waiting for it to finish",
                        owner.get("pid") if owner else "?",
                        home,
                    )
                    said = True
                await asyncio.sleep(POLL_SECONDS)
    except BaseException:
        handle.close()
        raise
    if not owned:
        handle.close()
        assert owner is not None
        yield str(owner["base_url"])
        return
    try:
        from companion.sandbox import Sandbox, SandboxConfig

        # COMPANION_SANDBOX_FACE=latitude: the embedded sandbox answers the spec's open
        # details the other way (companion.sandbox.face), as the tests of every door need.
        face = os.environ.get("COMPANION_SANDBOX_FACE") or "default"
        config = SandboxConfig(
            api_keys=[api_key], state=folder / "state.json", task_seconds=2.0, face=face
        )
        async with Sandbox(config) as sandbox:
            record = {"base_url": sandbox.base_url, "pid": os.getpid(), "long_lived": long_lived}
            temporary = folder / "owner.json.tmp"
            temporary.write_text(json.dumps(record))
            temporary.replace(folder / "owner.json")
            try:
                yield sandbox.base_url
            finally:
                (folder / "owner.json").unlink(missing_ok=True)
    finally:
        unlock_file(handle)
        handle.close()
