"""A hostile service against the real daemon and the one-click path: crafted formats,
packs carrying code and project settings, entries that climb or link out, metadata and
zip bombs, files the user already has. Nothing may land outside a target, no code or
project settings may be installed, no user file may change, every such job must end
failed with its reason, and /health must keep answering meanwhile."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.media.demo_art import draw_character
from companion.sandbox import SandboxConfig, SandboxThread
from tests.conftest import FACES, ROOMY, TEST_KEY
from tests.support import hostile_archives as crafted
from tests.support.daemon import DaemonThread
from tests.support.hostile_cases import (
    Daemon,
    HealthWatch,
    cases,
    judge,
    offer,
    prepare,
    snapshot,
    submit,
    wait_all,
)
from tests.support.hostile_service import Craft, HostileService

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=FACES)
def hostile(request: pytest.FixtureRequest) -> Iterator[HostileService]:
    """The hostile front over the sandbox on each of its faces (a money test)."""
    config = SandboxConfig(
        api_keys=[TEST_KEY],
        task_seconds=0.2,
        limits=ROOMY,
        min_retry_after=0,
        credits=100_000,
        face=str(request.param),
    )
    with SandboxThread(config) as sandbox:
        service = HostileService(sandbox.base_url).start()
        service.face = str(request.param)
        yield service
        service.stop()


def test_hostile_service_through_the_daemon(hostile: HostileService, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    running = DaemonThread(tmp_path / "home", hostile.base_url, TEST_KEY).start()
    try:
        daemon = Daemon(running.url, running.info["token"])
        all_cases = cases(meta_bytes=48 * 2**20)
        projects = {case.name: prepare(case, root) for case in all_cases}
        before = snapshot(tmp_path)
        with HealthWatch(daemon) as health:
            jobs = {
                case.name: offer(daemon, hostile, case, projects[case.name]) for case in all_cases
            }
            final = wait_all(daemon, [j for j in jobs.values() if isinstance(j, str)])
        after = snapshot(tmp_path)
    finally:
        running.stop()
    outcomes = [
        judge(case, projects[case.name], _final(jobs[case.name], final), before, after)
        for case in all_cases
    ]
    for outcome in outcomes:
        name = outcome.case.name
        assert not outcome.outside, (name, outcome.outside)
        assert not outcome.planted, (name, outcome.planted)
        assert not outcome.overwritten, (name, outcome.overwritten)
        if name.startswith("fmt_"):
            # A format not known here never fails the job, nor becomes a path: it is
            # kept aside, under the daemon's home, and the job's view names it.
            job = _final(jobs[name], final) or {}
            aside = job.get("kept_aside") or []
            assert aside and all(e["format"].startswith("'") for e in aside), (name, job)
            assert all(Path(e["path"]).is_relative_to(tmp_path / "home") for e in aside)
        else:
            assert outcome.refused, (name, outcome.state, outcome.error)
    # Every file outside the projects is the daemon's own (its home).
    strays = [p for p in set(after) - set(before) if not p.is_relative_to(root)]
    assert all(p.is_relative_to(tmp_path / "home") for p in strays), strays
    # The refusals say what was refused.
    errors = {o.case.name: o.error for o in outcomes}
    assert "script" in errors["godot_tool_script"]
    assert "script" in errors["godot_tres_script"]
    assert "evil.dll" in errors["unity_editor_cs_dll"] or "Evil.cs" in errors["unity_editor_cs_dll"]
    assert "pax header" in errors["unity_pax_bomb"]
    assert "GNU long name" in errors["unity_longname_bomb"]
    assert "hero.png was not written by the companion" in errors["godot_user_file"]
    # A user's file in the way of a name the daemon can foresee is refused before paying.
    assert "plain_user_file.png was not written by the companion" in errors["plain_user_file"]
    assert "Nothing was spent" in errors["plain_user_file"]
    assert health.failures == 0 and len(health.latencies) > 10
    assert max(health.latencies) < 2.0, statistics.quantiles(health.latencies, n=20)


def _final(job: str | dict[str, Any], final: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    return final.get(job) if isinstance(job, str) else job


def _animate(tmp_path: Path, base_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "COMPANION_HOME": str(tmp_path / "home"),
        "COMPANION_BASE_URL": base_url,
        "COMPANION_API_KEY": TEST_KEY,
    }
    return subprocess.run(
        # The service's own export: the crafted outputs are what is downloaded.
        [sys.executable, "-m", "companion", "animate", "--service-export", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_one_click_animate_never_replaces_a_users_file(
    hostile: HostileService, tmp_path: Path
) -> None:
    """A picture of the user's where an output would go: refused before anything is
    spent, the picture untouched; crafted formats change nothing of that."""
    out = tmp_path / "deep" / "er" / "out"
    out.mkdir(parents=True)
    (out / "hero.png").write_bytes(b"the user's own picture")
    image = tmp_path / "hero.png"
    draw_character(64).save(image)
    hostile.craft(
        {
            "spritesheet_json": Craft(format="x/../../../../escape/pwned"),
            "gif": Craft(format="..\\..\\escape"),
        },
        name="hero",
    )
    before = snapshot(tmp_path)
    result = _animate(
        tmp_path,
        hostile.base_url,
        *(str(image), "--prompt", "idle", "--out", str(out), "--name", "hero"),
        *("--formats", "spritesheet,spritesheet_json,gif", "--frame-count", "4"),
        *("--width", "64", "--height", "64", "--seconds", "1"),
    )
    assert result.returncode == 2, result.stderr
    assert "was not written by the companion" in result.stderr
    assert "nothing was spent" in result.stderr and "Traceback" not in result.stderr
    after = snapshot(tmp_path)
    assert after[out / "hero.png"] == before[out / "hero.png"]
    home = tmp_path / "home"
    assert {p for p in set(after) - set(before) if not p.is_relative_to(home)} == set()


def test_pack_with_only_allowed_files_still_installs(
    hostile: HostileService, tmp_path: Path
) -> None:
    """The policy refuses code, not packs: a clean crafted pack goes in."""
    running = DaemonThread(tmp_path / "home", hostile.base_url, TEST_KEY).start()
    try:
        daemon = Daemon(running.url, running.info["token"])
        from tests.support.hostile_cases import Case

        case = Case(
            "clean_pack",
            "godot",
            "animations",
            ["godot_pack"],
            {"godot_pack": Craft(content=crafted.godot_zip({}))},
        )
        project = prepare(case, tmp_path / "projects")
        job = wait_all(daemon, [submit(daemon, hostile, case, project)])
        (only,) = job.values()
        assert only["state"] == "done", only
        installed = (project / "animations").iterdir()
        # Only the pack was asked for: the video the task also returns stays there.
        assert sorted(p.name for p in installed if not p.name.startswith(".")) == [
            "hero.png",
            "hero.tres",
        ]
        # The same animation made again replaces its own files.
        job = wait_all(daemon, [submit(daemon, hostile, case, project, again=True)])
        (again,) = job.values()
        assert again["state"] == "done", again
        # Another animation whose pack holds the same paths never replaces them.
        other = Case("other_pack", "godot", "animations", case.formats, case.crafts)
        before = (project / "animations" / "hero.tres").read_bytes()
        job = wait_all(daemon, [submit(daemon, hostile, other, project)])
        (clash,) = job.values()
        assert clash["state"] == "failed", clash
        assert "holds the output of another animation ('clean_pack')" in clash["error"]
        assert (project / "animations" / "hero.tres").read_bytes() == before
    finally:
        running.stop()


def test_preview_of_hostile_frames_is_refused_by_its_caps(
    hostile: HostileService, tmp_path: Path
) -> None:
    """A frames_zip is installed as it is; the status page's preview of it must not
    decode a picture whose header declares 20000x20000, nor thousands of frames."""
    running = DaemonThread(tmp_path / "home", hostile.base_url, TEST_KEY).start()
    try:
        daemon = Daemon(running.url, running.info["token"])
        from tests.support.hostile_cases import Case

        bombs = {
            "frames_pixels": crafted.frames_zip_of(crafted.png_header_bomb(12000, 12000)),
            "frames_many": crafted.frames_zip_bomb(3000),
            "frames_fine": crafted.frames_zip_of(crafted.png_bytes(), 3),
        }
        jobs = {}
        for name, content in bombs.items():
            case = Case(
                name, "other", "out", ["frames_zip"], {"frames_zip": Craft(content=content)}
            )
            jobs[name] = submit(daemon, hostile, case, prepare(case, tmp_path / "projects"))
        final = wait_all(daemon, list(jobs.values()))
        assert all(job["state"] == "done" for job in final.values()), final
        with HealthWatch(daemon) as health:
            replies = {
                name: daemon.call("GET", f"/api/v1/jobs/{job_id}/preview.gif")
                for name, job_id in jobs.items()
            }
        assert replies["frames_fine"].status == 200
        assert replies["frames_fine"].body.startswith(b"GIF8")
        for name in ("frames_pixels", "frames_many"):
            assert replies[name].status == 404, (name, replies[name].status)
            assert replies[name].error["code"] == "NO_PREVIEW"
        assert health.failures == 0
    finally:
        running.stop()


def test_cli_animate_keeps_an_unknown_format_aside(hostile: HostileService, tmp_path: Path) -> None:
    out = tmp_path / "out"
    image = tmp_path / "hero.png"
    draw_character(64).save(image)
    hostile.craft({"spritesheet_json": Craft(format="x/../../../escape/pwned")}, name="cli_hero")
    before = snapshot(tmp_path)
    result = _animate(
        tmp_path,
        hostile.base_url,
        *(str(image), "--prompt", "idle", "--out", str(out), "--name", "cli_hero"),
        *("--formats", "spritesheet,spritesheet_json", "--frame-count", "4"),
        *("--width", "64", "--height", "64", "--seconds", "1"),
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    # Kept aside under a name of its own in the home, named in the closing lines.
    assert "kept aside: 'x/../../../escape/pwned' ('application/json')" in result.stdout
    home = tmp_path / "home"
    new = {p for p in set(snapshot(tmp_path)) - set(before) if not p.is_relative_to(home)}
    assert new == {out / "cli_hero.png"}, new  # the sheet asked for; the rest stays remote
    aside = [p for p in home.rglob("*") if p.is_file() and "aside" in p.parts]
    # The crafted output, and on the latitude face its own extra one of an unknown format.
    assert len(aside) == (2 if hostile.face == "latitude" else 1), aside
    assert any(p.suffix == ".json" for p in aside), aside
