"""A small tmpfs mounted over a test's folder (root only): a read-only folder root cannot
write through, or a disk that fills. Outside CI a machine that cannot mount skips the
test; with CI=true it fails, since CI runs as root."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


def mount_tmpfs(folder: Path, options: str, what: str) -> None:
    """tmpfs over folder with mount options (ro, size=...); `what` names it in the skip."""
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        reason = f"no {what} can be made here: {done.stderr.decode().strip()}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason} (CI=true: a tmpfs mount is needed)")
        pytest.skip(reason)


def unmount(folder: Path) -> None:
    subprocess.run(["umount", str(folder)], check=False)
