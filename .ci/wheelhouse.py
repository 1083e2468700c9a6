"""Keep the wheels one install resolved to, so the next CI run on this machine installs
from them alone.

    python3 .ci/wheelhouse.py key                  prints the wheelhouse's name
    python3 .ci/wheelhouse.py watch REPORT COPY    copies pip's report of the project's
                                                   install as soon as it is written
    python3 .ci/wheelhouse.py keep COPY FOLDER     fills FOLDER from that report

The name is a digest of pyproject.toml and the Python version, so a changed dependency
or interpreter starts a new wheelhouse and the next run resolves from the indexes again.
Filling is best effort: a wheelhouse that cannot be made is simply not there next time.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def key() -> str:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes())
    digest.update(sys.version.encode())
    return digest.hexdigest()[:16]


def resolved_urls(report: Path) -> list[str]:
    """Each installed distribution's file, as pip found it (the project itself, installed
    from its folder, has no file and is skipped)."""
    installed = json.loads(report.read_text())["install"]
    return [
        item["download_info"]["url"]
        for item in installed
        if "archive_info" in item["download_info"]
    ]


def lists_the_project(report: Path) -> bool | None:
    """pip writes a report for every install it makes with PIP_REPORT set: the editable
    install's own, and later those of the isolated builds the tests start (a wheel of
    the project needs setuptools). Only the first lists the project. None: no report
    there, or one half written."""
    try:
        installed = json.loads(report.read_text())["install"]
    except (OSError, ValueError, KeyError):
        return None
    return any(item["download_info"].get("dir_info", {}).get("editable") for item in installed)


def watch(report: Path, copy: Path) -> int:
    # The report is about 1 MB: it is read again only once it changed, and a read that
    # found it half written is taken again.
    seen: tuple[int, int] | None = None
    while True:
        try:
            stat = report.stat()
            stamp: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except FileNotFoundError:
            stamp = None
        if stamp is not None and stamp != seen:
            found = lists_the_project(report)
            if found:
                shutil.copyfile(report, copy)
                return 0
            if found is False:
                seen = stamp
        time.sleep(0.5)


def keep(report: Path, folder: Path) -> int:
    if folder.exists() or not lists_the_project(report):
        return 0
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    build_requires = pyproject["build-system"]["requires"]
    # Filled beside, then renamed: a run never sees half a wheelhouse, and two runs
    # filling at once each fill their own.
    partial = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
    # --no-deps: the report already lists every distribution; the build requirements go
    # through the index, as the editable install's isolated build needs them too.
    command = [str(ROOT / ".venv/bin/pip"), "download", "-q", "--no-deps", "-d", str(partial)]
    done = subprocess.run([*command, *resolved_urls(report), *build_requires], check=False)
    if done.returncode != 0:
        print(f"wheelhouse: pip download failed ({done.returncode}); none kept", file=sys.stderr)
        shutil.rmtree(partial, ignore_errors=True)
        return 0
    try:
        partial.replace(folder)
    except OSError:  # another run kept it first
        shutil.rmtree(partial, ignore_errors=True)
        return 0
    print(f"wheelhouse: kept {len(list(folder.iterdir()))} wheels in {folder}")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["key"]:
        print(key())
        return 0
    if argv[:1] == ["watch"] and len(argv) == 3:
        return watch(Path(argv[1]), Path(argv[2]))
    if argv[:1] == ["keep"] and len(argv) == 3:
        return keep(Path(argv[1]), Path(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
