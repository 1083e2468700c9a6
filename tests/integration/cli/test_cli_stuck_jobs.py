"""A job whose outputs cannot be written never hangs the queue: it ends failed saying what
to do, the other jobs run on, and a job caught between the service and the disk can be
cancelled. Once the folder is fixed, a retry (or the same command again) installs what
was paid for without paying again. Against a sandbox on loopback, through the real
command line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.jobs.landing.staging import STAGING
from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from companion.store import Store
from tests.conftest import TEST_KEY, both_faces
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.paid import creates

pytestmark = pytest.mark.slow

SMALL = ["--formats", "gif", "--frame-count", "4", "--width", "64", "--height", "64"]
SMALL += ["--seconds", "1", "--resolution", "360p"]


def states(base_url: str, home: Path) -> dict[str, str]:
    listed = companion(base_url, home, "jobs", "list").stdout.split()
    return {listed[i]: listed[i + 1] for i in range(0, len(listed), 4)}


@pytest.mark.parametrize("bought", ["video", "service-export"])
def test_an_unwritable_target_fails_its_job_and_the_others_run(
    make_sandbox, tmp_path: Path, bought: str
) -> None:  # type: ignore[no-untyped-def]
    """The video alone bought: it is kept here and exported again free once the folder
    is fixed. The service's export bought: its outputs stay at the service, named."""
    sandbox = make_sandbox(journal=True)
    base = sandbox.base_url
    home = tmp_path / "home"
    draw_character(64).save(tmp_path / "hero.png")
    add = ["jobs", "add", str(tmp_path / "hero.png"), "--prompt", "idle", *SMALL]
    add += ["--service-export"] if bought == "service-export" else []
    lost = companion(base, home, *add, "--target", str(tmp_path / "project" / "anim"))
    kept = companion(base, home, *add, "--target", str(tmp_path / "ok"))
    assert lost.returncode == 0 and kept.returncode == 0, lost.stderr + kept.stderr
    # The project went away after the job was queued: a file stands in its place.
    (tmp_path / "project").write_text("not a folder")

    ran = companion(base, home, "jobs", "run")
    assert ran.returncode == 1 and "Traceback" not in ran.stderr, ran.stderr
    assert states(base, home) == {lost.stdout.strip(): "failed", kept.stdout.strip(): "done"}
    again = companion(base, home, "jobs", "run")  # nothing is left hanging to run again
    assert again.returncode == 0 and again.stdout == "" and "Traceback" not in again.stderr
    shown = json.loads(companion(base, home, "jobs", "show", lost.stdout.strip()[:8]).stdout)
    assert f"cannot write the outputs into {tmp_path / 'project' / 'anim'}" in shown["error"]
    if bought == "service-export":
        assert "companion assets download" in shown["error"]
        assert shown["outputs"][0]["asset"] in shown["error"]
    else:
        assert "paid for and kept here" in shown["error"], shown["error"]
    assert f"companion jobs retry {lost.stdout.strip()[:8]}" in shown["error"]
    assert (tmp_path / "ok" / "hero.gif").is_file()

    # The folder fixed, a retry installs the paid outputs; nothing is made again.
    (tmp_path / "project").unlink()
    retried = companion(base, home, "jobs", "retry", lost.stdout.strip()[:8])
    assert retried.returncode == 0, retried.stderr
    assert retried.stdout.split() == [lost.stdout.strip(), "done"]
    assert (tmp_path / "project" / "anim" / "hero.gif").is_file()
    # One generation, paid once: the second job was a free re-cut of its clip, kept though
    # the first job's folder could not take its outputs; none for the retry.
    assert len(creates(sandbox)) == 1


def test_a_job_caught_downloading_can_be_cancelled(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(journal=True)
    base = sandbox.base_url
    home = tmp_path / "home"
    draw_character(64).save(tmp_path / "hero.png")
    target = tmp_path / "out"
    added = companion(
        base, home, "jobs", "add", str(tmp_path / "hero.png"), "--prompt", "idle", *SMALL,
        "--target", str(target), "--service-export",  # the service's outputs downloaded
    )  # fmt: skip
    job = added.stdout.strip()
    killed = companion(base, home, "jobs", "run", crash="mid_download")
    assert killed.returncode < 0 and states(base, home) == {job: "downloading"}

    cancelled = companion(base, home, "jobs", "cancel", job[:8])
    assert cancelled.returncode == 0, cancelled.stderr
    assert cancelled.stdout.split() == [job, "failed"]
    assert "companion assets download" in cancelled.stderr
    assert states(base, home) == {job: "failed"}
    assert not (target / STAGING).exists()

    again = companion(base, home, "jobs", "cancel", job[:8])
    assert again.returncode == 1 and "already failed" in again.stderr
    assert companion(base, home, "jobs", "run").returncode == 0  # nothing left to run
    assert states(base, home) == {job: "failed"}

    # Cancelled after the service made it: a retry installs it, free.
    retried = companion(base, home, "jobs", "retry", job[:8])
    assert retried.returncode == 0, retried.stderr
    assert states(base, home) == {job: "done"}
    assert (target / "hero.gif").is_file()
    assert len(creates(sandbox)) == 1


def test_the_same_command_again_installs_a_paid_job_whose_outputs_did_not_go_in(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    sandbox = make_sandbox(journal=True)
    base = sandbox.base_url
    home = tmp_path / "home"
    draw_character(64).save(tmp_path / "hero.png")
    out = tmp_path / "out"
    animate = ["animate", str(tmp_path / "hero.png"), "--prompt", "idle", *SMALL]
    animate += ["--out", str(out), "--service-export"]  # the service's outputs downloaded
    killed = companion(base, home, *animate, crash="mid_download")
    assert killed.returncode < 0
    [job] = states(base, home)
    assert companion(base, home, "jobs", "cancel", job[:8]).returncode == 0
    assert states(base, home) == {job: "failed"}

    again = companion(base, home, *animate)
    assert again.returncode == 0, again.stderr
    assert "nothing is paid again" in again.stderr
    assert "nothing spent by this run" in again.stderr
    assert states(base, home) == {job: "done"}
    assert (out / "hero.gif").is_file()
    assert len(creates(sandbox)) == 1
    # Done now, with its outputs in place: a third run only reports them.
    third = companion(base, home, *animate)
    assert third.returncode == 0 and "already made" in third.stderr
    assert len(creates(sandbox)) == 1


@both_faces
def test_a_generation_its_command_left_is_taken_along_by_another(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    """A command killed once its generation was sent, then another asking the same
    generation with other frames into another folder: the second does not wait for the
    first forever, it takes the generation along (its outputs land where the first asked)
    and re-cuts its own from the clip. One task, paid once, the books the account's."""
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    before = api.get("/credits/balance").json["available"]
    home = tmp_path / "home"
    picture = tmp_path / "hero.png"
    draw_character(128).save(picture)
    video = ["--prompt", "idle", "--seconds", "1", "--resolution", "360p"]
    sheet = ["--formats", "spritesheet,spritesheet_json"]
    first = ["animate", str(picture), *video, *sheet, "--frame-count", "4"]
    killed = companion(
        sandbox.base_url, home, *first, "--out", str(tmp_path / "first"), crash="after_send"
    )
    assert killed.returncode != 0 and len(creates(sandbox)) == 1
    # A bound, so that waiting on a generation nobody takes along fails instead of hanging.
    other = ["animate", str(picture), *video, *sheet, "--frame-count", "3", "--timeout", "60"]
    done = companion(sandbox.base_url, home, *other, "--out", str(tmp_path / "second"))
    assert done.returncode == 0, done.stderr
    assert "is generating this" in done.stderr and "nothing is spent" in done.stderr
    frames = {
        name: len(json.loads((tmp_path / name / "hero.json").read_text())["frames"])
        for name in ("first", "second")
    }
    assert frames == {"first": 4, "second": 3}
    assert len(creates(sandbox)) == 1
    store = Store(home / "companion.db")
    try:
        charged = {j.kind: store.charged(j.id) for j in store.jobs()}
    finally:
        store.close()
    spent = before - api.get("/credits/balance").json["available"]
    assert charged["recut"] == 0 and charged["animation"] == spent > 0
