"""A real Godot 4 for the tests: Debian sid's `godot` package in a minimal sid root.

The root is made once per machine with debootstrap (about a minute) into a cache folder,
COMPANION_GODOT_ROOT or /var/cache/companion-tests/godot-sid. A lock file keeps two runs
from building at once; the root is built beside its final place and renamed into it only
when finished (with a marker naming the version), so a half-made root is never used and
is rebuilt. Godot runs through the root's own dynamic loader and libraries, so it sees
the host's files and loopback directly, without chroot or bind mounts.

As a script (`python -m tests.support.real_godot`) it provisions and prints the version, so CI can
make the root before the tests run. Tests take the `real_godot` fixture: outside CI they
skip when Godot cannot be made here; with CI=true they fail instead."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

try:
    import pytest
except ImportError:  # run as a script by CI, before the test environment exists
    pytest = None  # type: ignore[assignment]

ROOT_ENV = "COMPANION_GODOT_ROOT"
DEFAULT_ROOT = Path("/var/cache/companion-tests/godot-sid")
MIRROR = "http://deb.debian.org/debian"
MARKER = ".companion-godot-ready"
LIBS = "usr/lib/x86_64-linux-gnu"
APT = ["apt-get", "-o", "Acquire::Check-Valid-Until=false"]


class GodotUnavailable(Exception):
    """Godot cannot be made on this machine; the message says why."""


@dataclass(frozen=True)
class Godot:
    root: Path
    version: str

    def argv(self, *args: str) -> list[str]:
        libs = self.root / LIBS
        return [
            str(libs / "ld-linux-x86-64.so.2"),
            "--library-path",
            f"{libs}:{libs / 'pulseaudio'}",
            str(self.root / "usr/bin/godot"),
            *args,
        ]

    def env(self, home: Path, **extra: str) -> dict[str, str]:
        """Godot's own settings and caches in `home`, never the user's."""
        _seed_doc_cache(self.root, home / "cache" / "godot")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "LD_"))}
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / "config"),
            XDG_DATA_HOME=str(home / "data"),
            XDG_CACHE_HOME=str(home / "cache"),
            **extra,
        )
        return env

    def run(
        self, home: Path, *args: str, timeout: float = 120, **extra: str
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(*args),
            env=self.env(home, **extra),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def cache_root() -> Path:
    return Path(os.environ.get(ROOT_ENV) or DEFAULT_ROOT)


def _version(root: Path) -> str:
    godot = Godot(root, "")
    with tempfile.TemporaryDirectory() as home:
        done = godot.run(Path(home), "--headless", "--version", timeout=60)
    if done.returncode != 0 or not done.stdout.strip():
        raise GodotUnavailable(f"godot in {root} does not run: {done.stderr.strip()[-500:]}")
    return done.stdout.strip().splitlines()[-1]


def _mounts_under(folder: Path) -> list[str]:
    prefix = str(folder) + "/"
    with open("/proc/self/mounts") as mounts:
        points = [line.split()[1] for line in mounts]
    return sorted((p for p in points if p.startswith(prefix)), reverse=True)


def _remove(folder: Path) -> None:
    """A half-made root, after anything a crashed build left mounted inside it."""
    for point in _mounts_under(folder):
        subprocess.run(["umount", "-l", point], check=False)
    if _mounts_under(folder):
        raise GodotUnavailable(f"{folder} still has mounts inside; unmount them first")
    shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def _locked(root: Path) -> Iterator[None]:
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.with_name(root.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _step(argv: list[str], what: str) -> None:
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    )
    if done.returncode != 0:
        raise GodotUnavailable(f"{what} failed: {(done.stdout + done.stderr).strip()[-800:]}")


def _build(root: Path) -> None:
    if os.geteuid() != 0:
        raise GodotUnavailable("making the Godot root needs root (debootstrap and chroot)")
    if shutil.which("debootstrap") is None:
        raise GodotUnavailable("debootstrap is not installed (apt-get install debootstrap)")
    building = root.with_name(root.name + ".building")
    _remove(building)
    _step(["debootstrap", "--variant=minbase", "sid", str(building), MIRROR], "debootstrap")
    _step(["chroot", str(building), *APT, "update", "-qq"], "apt-get update in the sid root")
    install = ["install", "-y", "-qq", "--no-install-recommends", "godot"]
    _step(["chroot", str(building), *APT, *install], "apt-get install godot")
    _step(["chroot", str(building), "apt-get", "clean"], "apt-get clean")
    version = _version(building)
    (building / MARKER).write_text(version + "\n")
    _remove(root)
    building.rename(root)


def provision(root: Path | None = None) -> Godot:
    """The Godot at `root` (default: the cache), made first if missing or half-made."""
    root = root or cache_root()
    with _locked(root):
        if not (root / MARKER).is_file():
            _build(root)
        godot = Godot(root, _version(root))
        if not any((root / DOC_CACHE).glob("*.res")):
            _keep_doc_cache(godot)
        return godot


# The editor's class reference, which every editor builds on its first start in a new
# home (3 s of CPU): built once per Godot here and copied into each test's home. The
# editor checks it against its own classes and builds it again if it does not match.
DOC_CACHE = "companion-editor-doc-cache"


def _keep_doc_cache(godot: Godot) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        project, home = Path(scratch) / "project", Path(scratch) / "home"
        project.mkdir()
        (project / "project.godot").write_text("config_version=5\n")
        subprocess.run(
            godot.argv("--headless", "--editor", "--quit", "--path", str(project)),
            env=godot.env(home),
            capture_output=True,
            timeout=300,
            check=False,
        )
        made = sorted((home / "cache" / "godot").glob("editor_doc_cache-*.res"))
        if made:
            kept = godot.root / DOC_CACHE
            kept.mkdir(exist_ok=True)
            partial = kept / (made[0].name + ".partial")
            shutil.copyfile(made[0], partial)
            partial.replace(kept / made[0].name)


def _seed_doc_cache(root: Path, cache: Path) -> None:
    for kept in (root / DOC_CACHE).glob("*.res"):
        target = cache / kept.name
        if not target.exists():
            cache.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(kept, target)


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def _real_godot() -> Godot:
    try:
        return provision()
    except GodotUnavailable as exc:
        if in_ci():
            pytest.fail(f"CI needs a real Godot: {exc}")
        pytest.skip(f"no real Godot here: {exc}")


if pytest is not None:
    real_godot = pytest.fixture(scope="session", name="real_godot")(_real_godot)


def main() -> int:
    try:
        godot = provision()
    except GodotUnavailable as exc:
        print(f"Godot: {exc}", file=sys.stderr)
        return 1
    print(f"Godot {godot.version} in {godot.root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
