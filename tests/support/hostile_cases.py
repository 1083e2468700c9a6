"""The hostile cases, shared by the tests and the bench: each a project (engine, target),
the outputs asked for, what the hostile service does to them, and any file the user
already has where the outputs would land. Every case must end `failed` with a reason,
with nothing outside its target, no code or project settings installed and every user
file untouched."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.install.safety.policy import BINARIES, SCRIPTS, SETTINGS_SUFFIXES
from companion.media.demo_art import draw_character
from tests.support import hostile_archives as crafted
from tests.support.calls import Reply, request
from tests.support.hostile_service import Craft, HostileService

SHEET = ["spritesheet", "spritesheet_json"]
MiB = 2**20


@dataclass(frozen=True)
class Case:
    name: str
    engine: str
    target: str
    formats: list[str]
    crafts: dict[str, Craft]
    user_files: dict[str, bytes] = field(default_factory=dict)  # relative to the target
    links: dict[str, str] = field(default_factory=dict)  # in the target -> outside folder


def cases(meta_bytes: int = 64 * MiB) -> list[Case]:
    def fmt(value: str) -> dict[str, Craft]:
        return {"spritesheet": Craft(format=value)}

    return [
        Case("fmt_up_godot", "godot", "animations", SHEET, fmt("x/../../../../escape/pwned")),
        Case("fmt_up_unity", "unity", "Assets/Anim", SHEET, fmt("x/../../../../../escape/pwned")),
        Case("fmt_up_plain", "other", "out", ["spritesheet"], fmt("/../../../../escape/pwned")),
        Case("fmt_absolute", "other", "out", ["spritesheet"], fmt("/tmp/escape/pwned")),
        Case("fmt_nul", "other", "out", ["spritesheet"], fmt("png\x00../../x")),
        Case("fmt_backslash", "godot", ".", SHEET, fmt("..\\..\\..\\escape\\pwned")),
        Case("fmt_drive", "other", "out", ["spritesheet"], fmt("C:\\escape\\pwned")),
        Case(
            "godot_tool_script",
            "godot",
            ".",
            ["godot_pack"],
            {"godot_pack": Craft(content=crafted.godot_with_scripts())},
        ),
        Case(
            "godot_tres_script",
            "godot",
            "animations",
            ["godot_pack"],
            {"godot_pack": Craft(content=crafted.godot_zip({}, tres=crafted.TRES_WITH_SCRIPT))},
        ),
        Case(
            "godot_entry_climbs",
            "godot",
            "animations",
            ["godot_pack"],
            {"godot_pack": Craft(content=crafted.zip_traversal())},
        ),
        Case(
            "godot_symlink",
            "godot",
            "animations",
            ["godot_pack"],
            {"godot_pack": Craft(content=crafted.zip_with_symlink())},
        ),
        Case(
            "godot_zip_bomb",
            "godot",
            "animations",
            ["godot_pack"],
            {"godot_pack": Craft(content=crafted.zip_bomb(64))},
        ),
        Case(
            "godot_user_file",
            "godot",
            "animations",
            ["godot_pack"],
            {"godot_pack": Craft(content=crafted.godot_zip({}))},
            {"hero.png": b"the user's own hero"},
        ),
        Case(
            "godot_root_user_file",
            "godot",
            ".",
            ["godot_pack"],
            {"godot_pack": Craft(content=crafted.godot_zip({}))},
            {"hero.png": b"the user's own hero, at the project root"},
        ),
        Case(
            "unity_user_file",
            "unity",
            "Assets/Animations",
            ["unity_pack"],
            {"unity_pack": Craft(content=crafted.unitypackage({"Assets/X/hero.png": b"png"}))},
            {"hero.png": b"the user's own hero"},
        ),
        Case(
            "unity_editor_cs_dll",
            "unity",
            "Assets/Animations",
            ["unity_pack"],
            {"unity_pack": Craft(content=crafted.unity_with_code())},
        ),
        Case(
            "unity_outside_assets",
            "unity",
            "Assets/Animations",
            ["unity_pack"],
            {"unity_pack": Craft(content=crafted.unity_outside_assets())},
        ),
        Case(
            "unity_climbs",
            "unity",
            "Assets/Animations",
            ["unity_pack"],
            {"unity_pack": Craft(content=crafted.unity_climbing())},
        ),
        Case(
            "unity_symlink",
            "unity",
            "Assets/Animations",
            ["unity_pack"],
            {"unity_pack": Craft(content=crafted.unity_with_symlink())},
        ),
        Case(
            "unity_pax_bomb",
            "unity",
            "Assets/Animations",
            ["unity_pack"],
            {"unity_pack": Craft(content=crafted.tar_with_huge_metadata(b"x", meta_bytes))},
        ),
        Case(
            "unity_longname_bomb",
            "unity",
            "Assets/Animations",
            ["unity_pack"],
            {"unity_pack": Craft(content=crafted.tar_with_huge_metadata(b"L", meta_bytes))},
        ),
        Case(
            "staging_link",
            "other",
            "out",
            ["spritesheet"],
            {},
            links={".companion-staging~": "elsewhere"},
        ),
        Case(
            "plain_user_file",
            "other",
            "out",
            ["spritesheet"],
            {},
            {"plain_user_file.png": b"the user's own picture"},
        ),
    ]


def snapshot(root: Path) -> dict[Path, str]:
    """Every file and link under root, with a digest of its bytes (or where it links)."""
    found: dict[Path, str] = {}
    for folder, dirs, files in os.walk(root):
        for entry in [*files, *(d for d in dirs if os.path.islink(os.path.join(folder, d)))]:
            path = Path(folder) / entry
            if path.is_symlink():
                found[path] = "link:" + os.readlink(path)
            else:
                found[path] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


FORBIDDEN_NAMES = frozenset({"project.godot", "ProjectSettings.asset"})


def forbidden(path: Path) -> bool:
    suffix = path.suffix.lower()
    return (
        suffix in SCRIPTS
        or suffix in BINARIES
        or suffix in SETTINGS_SUFFIXES
        or path.name in FORBIDDEN_NAMES
    )


class Daemon:
    """Calls to a running daemon with its token."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token

    def call(self, method: str, path: str, body: Any = None, timeout: float = 60) -> Reply:
        import json

        headers = {"Authorization": f"Bearer {self.token}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        return request(method, self.url + path, body=data, headers=headers, timeout=timeout)


class HealthWatch:
    """Polls /health on a thread and keeps every latency."""

    def __init__(self, daemon: Daemon, interval: float = 0.05) -> None:
        self.daemon, self.interval = daemon, interval
        self.latencies: list[float] = []
        self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            start = time.perf_counter()
            try:
                ok = self.daemon.call("GET", "/api/v1/health", timeout=10).status == 200
            except OSError:
                ok = False
            self.latencies.append(time.perf_counter() - start)
            self.failures += not ok
            self._stop.wait(self.interval)

    def __enter__(self) -> HealthWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(15)


def prepare(case: Case, root: Path) -> Path:
    """The case's project with the user's own files; returns its root."""
    project = root / case.name / "game"
    (project / "art").mkdir(parents=True)
    draw_character(64).save(project / "art" / "hero.png")
    if case.engine == "godot":
        (project / "project.godot").write_text("config_version=5\n")
    if case.engine == "unity":
        (project / "ProjectSettings").mkdir()
        (project / "ProjectSettings" / "ProjectSettings.asset").write_text("%YAML 1.1\n")
        (project / "Assets").mkdir()
    for relative, outside in case.links.items():
        (project.parent / outside).mkdir(parents=True, exist_ok=True)
        (project / case.target).mkdir(parents=True, exist_ok=True)
        (project / case.target / relative).symlink_to(project.parent / outside)
    for relative, data in case.user_files.items():
        where = project / case.target / relative
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_bytes(data)
    return project


def submit(
    daemon: Daemon, hostile: HostileService, case: Case, project: Path, again: bool = False
) -> str:
    accepted = offer(daemon, hostile, case, project, again)
    assert isinstance(accepted, str), accepted
    return accepted


def offer(
    daemon: Daemon, hostile: HostileService, case: Case, project: Path, again: bool = False
) -> str | dict[str, Any]:
    """The job's id, or, when the daemon refuses the request before anything is paid
    (409 CONFLICT: a file in the way is the user's), that refusal as a failed job."""
    hostile.craft(case.crafts, name=case.name)
    reply = daemon.call(
        "POST",
        "/api/v1/projects",
        {"root": str(project), "engine": case.engine, "target": case.target},
    )
    assert reply.status in (200, 201), reply.body
    body = {
        "project_root": str(project),
        "image_path": "art/hero.png",
        # A generation of its own per case: the same remote part would be answered free
        # from the first case's kept clip, and the crafted assets never reached.
        "prompt": f"idle {case.name}",
        "name": case.name,
        "video": {"duration_seconds": 1, "resolution": "360p"},
        "export": {
            "frame_count": 4,
            "output_width": 64,
            "output_height": 64,
            "output_formats": case.formats,
        },
        "again": again,  # the same request made again, paid again
        # The service's export, downloaded: otherwise the video alone is bought and every
        # format made here from it, and the crafted assets never reached.
        "service_export": True,
        "in_place": False,
        "trim": False,
    }
    accepted = daemon.call("POST", "/api/v1/animate", body)
    if accepted.status == 409 and accepted.json["error"]["code"] == "CONFLICT":
        return {"state": "failed", "error": accepted.json["error"]["message"]}
    assert accepted.status == 202, accepted.body
    return str(accepted.json["id"])


def wait_all(daemon: Daemon, job_ids: list[str], timeout: float = 120) -> dict[str, dict[str, Any]]:
    deadline = time.monotonic() + timeout
    final: dict[str, dict[str, Any]] = {}
    while time.monotonic() < deadline and len(final) < len(job_ids):
        for job_id in job_ids:
            if job_id not in final:
                job = daemon.call("GET", f"/api/v1/jobs/{job_id}").json
                if job["state"] in ("done", "failed", "cancelled"):
                    final[job_id] = job
        time.sleep(0.1)
    return final


@dataclass
class Outcome:
    case: Case
    state: str
    error: str
    outside: list[Path]
    planted: list[Path]
    overwritten: list[Path]

    @property
    def refused(self) -> bool:
        return self.state == "failed" and bool(self.error)

    @property
    def lost(self) -> bool:
        return bool(self.outside or self.planted or self.overwritten)


def judge(
    case: Case,
    project: Path,
    job: dict[str, Any] | None,
    before: dict[Path, str],
    after: dict[Path, str],
) -> Outcome:
    target = (project / case.target).resolve()
    mine = {p: d for p, d in after.items() if p.is_relative_to(project.parent)}
    new = [p for p in mine if p not in before]
    outside = [p for p in new if not p.resolve().is_relative_to(target)]
    planted = [p for p in new if forbidden(p)]
    overwritten = [
        p for p, d in before.items() if p.is_relative_to(project.parent) and after.get(p) != d
    ]
    return Outcome(
        case,
        (job or {}).get("state", "stuck"),
        str((job or {}).get("error") or ""),
        outside,
        planted,
        overwritten,
    )
