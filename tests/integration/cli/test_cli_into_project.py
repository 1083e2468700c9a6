"""The command line's results into a Godot or Unity project are installed the engine's
way, as the daemon's are: the pack unpacked into a SpriteFrames (or a clip) updated in
place with the user's edits kept, one set of files per name, never a NAME_godot.zip
beside a resource that still shows the old frames."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from unityparser import UnityDocument

from companion.media.demo_art import draw_character
from companion.store import Store
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import companion, tasks
from tests.support.daemon import DaemonThread
from tests.support.godot import game, play
from tests.support.paths import REPO
from tests.support.plugin_script import ScriptedPlugin
from tests.support.real_godot import Godot, real_godot  # noqa: F401  (the fixture)
from tests.support.unity import as_unity_saves_it

SHORT = ["--seconds", "1", "--resolution", "360p", "--width", "64", "--height", "64"]
SAMPLE_GODOT = REPO / "samples" / "godot"
GODOT = ["--formats", "spritesheet,spritesheet_json,godot_pack"]


def _regions(tres: Path) -> list[str]:
    """The sheet regions the SpriteFrames plays, in order."""
    return re.findall(r"^region = (Rect2\([^)]*\))", tres.read_text(), re.M)


def _listed_sizes_are_real(stdout: str) -> int:
    """Every `  FORMAT  PATH  (N bytes)` line names the size of the file at PATH (it
    named the downloaded pack's size beside the one file installed from it)."""
    listed = re.findall(r"^  \S+\s+(.+?)  \(([\d,]+) bytes\)$", stdout, re.M)
    for path, size in listed:
        assert int(size.replace(",", "")) == Path(path).stat().st_size, (path, size)
    return len(listed)


def _job_ids(home: Path) -> list[str]:
    store = Store(home / "companion.db")
    try:
        return [j.id for j in store.jobs()]
    finally:
        store.close()


@pytest.mark.slow
def test_godot_animate_then_recut_update_the_sprite_frames(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    home = tmp_path / "home"
    game = tmp_path / "g3"
    out = game / "animations"
    out.mkdir(parents=True)
    (game / "project.godot").write_text("config_version=5\n")
    draw_character(64).save(game / "hero.png")
    made = companion(
        sandbox.base_url, home, "animate", str(game / "hero.png"), "--prompt", "idle",
        *GODOT, "--frame-count", "4", *SHORT, "--out", str(out),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert _listed_sizes_are_real(made.stdout) == 3, made.stdout
    # The engine's layout: the pack unpacked into a SpriteFrames, no archive in the game.
    assert sorted(p.name for p in out.iterdir()) == ["hero.json", "hero.png", "hero.tres"]
    tres = out / "hero.tres"
    assert len(_regions(tres)) == 4 and 'path="res://animations/hero.png"' in tres.read_text()
    # The user slows the animation down in the editor: their speed is kept from now on.
    edited = re.sub(r'"speed": [0-9.]+', '"speed": 9.0', tres.read_text())
    tres.write_text(edited)

    hop = companion(
        sandbox.base_url, home, "animate", str(game / "hero.png"), "--prompt", "hop",
        *GODOT, "--frame-count", "6", *SHORT, "--out", str(out),
    )  # fmt: skip
    assert hop.returncode == 0, hop.stderr
    assert sorted(p.name for p in out.iterdir()) == ["hero.json", "hero.png", "hero.tres"]
    assert len(_regions(tres)) == 6  # the new sheet's frames, not the old 4 regions
    assert '"speed": 9.0' in tres.read_text()

    job = _job_ids(home)[0]  # either kept clip will do
    recut = companion(
        sandbox.base_url, home, "recut", job[:8], *GODOT, "--frame-count", "8",
        "--width", "64", "--height", "64", "--out", str(out),
    )  # fmt: skip
    assert recut.returncode == 0, recut.stderr
    assert _listed_sizes_are_real(recut.stdout) == 3, recut.stdout
    assert sorted(p.name for p in out.iterdir()) == ["hero.json", "hero.png", "hero.tres"]
    assert len(_regions(tres)) == 8
    assert '"speed": 9.0' in tres.read_text()  # merged in place: the user's edit kept
    assert "updat" in recut.stderr and "hero.tres" in recut.stderr
    # --loop auto: the span chosen and its seam are in the summary, as export's are.
    looped = companion(
        sandbox.base_url, home, "recut", job[:8], *GODOT, "--frame-count", "8",
        "--width", "64", "--height", "64", "--loop", "auto", "--json", "--out", str(out),
    )  # fmt: skip
    assert looped.returncode == 0, looped.stderr
    summary = json.loads(looped.stdout.strip().splitlines()[-1])
    assert summary["spent_now"] == 0 and summary["loop"]["seam"] >= 0, summary


@pytest.mark.slow
def test_unity_animate_then_recut_update_the_clip(make_sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    home = tmp_path / "home"
    game = tmp_path / "u3"
    out = game / "Assets" / "Animations"
    out.mkdir(parents=True)
    (game / "ProjectSettings").mkdir()
    draw_character(64).save(tmp_path / "hero.png")
    unity = ["--formats", "spritesheet,spritesheet_json,unity_pack"]
    made = companion(
        sandbox.base_url, home, "animate", str(tmp_path / "hero.png"), "--prompt", "idle",
        *unity, "--frame-count", "4", *SHORT, "--out", str(out),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    unity_layout = ["hero.anim", "hero.anim.meta", "hero.json", "hero.json.meta", "hero.png"]
    unity_layout.append("hero.png.meta")
    assert sorted(p.name for p in out.iterdir()) == unity_layout  # no hero_unity.zip
    anim = out / "hero.anim"
    clip_guid = UnityDocument.load_yaml(str(anim.with_name("hero.anim.meta"))).entry["guid"]
    assert len(UnityDocument.load_yaml(str(anim)).entry.m_PPtrCurves[0]["curve"]) == 4
    anim.write_text(as_unity_saves_it(anim.read_text(), layout="companion"))  # loop off

    job = _job_ids(home)[0]
    recut = companion(
        sandbox.base_url, home, "recut", job[:8], *unity, "--frame-count", "8",
        "--width", "64", "--height", "64", "--out", str(out),
    )  # fmt: skip
    assert recut.returncode == 0, recut.stderr
    assert sorted(p.name for p in out.iterdir()) == unity_layout
    clip = UnityDocument.load_yaml(str(anim)).entry
    assert len(clip.m_PPtrCurves[0]["curve"]) == 8
    assert clip.m_AnimationClipSettings["m_LoopTime"] == "0" and clip.m_Events  # kept
    assert UnityDocument.load_yaml(str(anim.with_name("hero.anim.meta"))).entry["guid"] == (
        clip_guid
    )


def test_which_project_a_folder_lies_in(tmp_path: Path) -> None:
    from companion.install import placement_for

    godot = tmp_path / "g"
    (godot / "chars" / "hero").mkdir(parents=True)
    (godot / "project.godot").write_text("config_version=5\n")
    found = placement_for(godot / "chars" / "hero")
    assert found is not None and (found.engine, found.project_root) == ("godot", godot)
    unity = tmp_path / "u"
    for folder in ("Assets/Animations", "ProjectSettings", "Exports"):
        (unity / folder).mkdir(parents=True)
    found = placement_for(unity / "Assets" / "Animations")
    assert found is not None and (found.engine, found.project_root) == ("unity", unity)
    assert placement_for(unity / "Exports") is None  # Unity never imports it: a plain folder
    assert placement_for(tmp_path / "plain") is None
    # A registered project wins, the deepest first; an engine the install has no layout
    # for is a plain folder.
    nested = godot / "chars"
    found = placement_for(godot / "chars" / "hero", [(str(godot), "godot"), (str(nested), "godot")])
    assert found is not None and found.project_root == nested
    assert placement_for(godot / "chars", [(str(godot), "other")]) is None


def test_a_queued_job_into_a_project_carries_its_engine(tmp_path: Path) -> None:
    home = tmp_path / "home"
    game = tmp_path / "g"
    game.mkdir()
    (game / "project.godot").write_text("config_version=5\n")
    draw_character(64).save(tmp_path / "hero.png")
    added = companion(
        "http://127.0.0.1:9", home, "jobs", "add", str(tmp_path / "hero.png"), "--prompt", "hop",
        *GODOT, "--target", str(game / "animations"),
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    store = Store(home / "companion.db")
    try:
        (job,) = store.jobs()
    finally:
        store.close()
    assert job.request["install"] == {"engine": "godot", "root": str(game.resolve())}
    # A SpriteFrames of the user's under that name: refused before anything is queued.
    (game / "animations").mkdir()
    (game / "animations" / "mine.tres").write_text("[gd_resource]\n")
    mine = companion(
        "http://127.0.0.1:9", home, "jobs", "add", str(tmp_path / "hero.png"), "--prompt", "hop",
        *GODOT, "--name", "mine", "--target", str(game / "animations"),
    )  # fmt: skip
    assert mine.returncode == 2 and "mine.tres was not written by the companion" in mine.stderr
    assert f"Give --name mine_2 (free in {game / 'animations'})" in mine.stderr  # named
    store = Store(home / "companion.db")
    try:
        assert len(store.jobs()) == 1
    finally:
        store.close()


def test_an_export_into_a_godot_project_updates_the_sprite_frames(
    index_video: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    game = tmp_path / "g"
    out = game / "animations"
    out.mkdir(parents=True)
    (game / "project.godot").write_text("config_version=5\n")
    args = ["export", str(index_video), *GODOT, "--name", "hero", "--width", "64"]
    args += ["--height", "64", "--out", str(out)]
    first = companion("http://127.0.0.1:9", home, *args, "--frame-count", "4")
    assert first.returncode == 0, first.stderr
    assert sorted(p.name for p in out.iterdir()) == ["hero.json", "hero.png", "hero.tres"]
    tres = out / "hero.tres"
    assert len(_regions(tres)) == 4
    tres.write_text(re.sub(r'"speed": [0-9.]+', '"speed": 9.0', tres.read_text()))
    again = companion("http://127.0.0.1:9", home, *args, "--frame-count", "6")
    assert again.returncode == 0, again.stderr
    # Updated in place, never deleted as a leftover nor left with the old regions.
    assert sorted(p.name for p in out.iterdir()) == ["hero.json", "hero.png", "hero.tres"]
    assert len(_regions(tres)) == 6 and '"speed": 9.0' in tres.read_text()
    # A SpriteFrames the user made by hand is theirs: refused before anything is written.
    (out / "mine.tres").write_text("[gd_resource]\n")
    mine = companion("http://127.0.0.1:9", home, *args[:-4], "--name", "mine", "--out", str(out))
    assert mine.returncode == 2 and "mine.tres was not written by the companion" in mine.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "hero.json", "hero.png", "hero.tres", "mine.tres"
    ]  # fmt: skip


@pytest.mark.slow
def test_the_cli_re_cuts_and_re_animates_a_daemon_job_into_its_registered_project(
    daemon: DaemonThread, tmp_path: Path
) -> None:
    """The daemon made hero into a registered Godot project; the command line then re-cuts
    that job and animates hero again into the same folder."""
    project = tmp_path / "game"
    shutil.copytree(SAMPLE_GODOT, project)
    plugin = ScriptedPlugin(daemon.home, "godot", project)
    plugin.refresh()
    body = plugin.body("art/hero.png", "idle", ["godot_pack"], 64, 4, 1)
    plugin.quote(body)
    made = plugin.poll(plugin.animate(body))
    assert made["state"] == "done", made
    out = project / "animations"
    tres = out / "hero.tres"
    assert len(_regions(tres)) == 4
    url = daemon.settings.base_url
    recut = companion(
        url, daemon.home, "recut", made["id"][:8], *GODOT, "--frame-count", "8",
        "--width", "64", "--height", "64", "--out", str(out),
    )  # fmt: skip
    assert recut.returncode == 0, recut.stderr
    assert _listed_sizes_are_real(recut.stdout) == 3, recut.stdout
    assert sorted(p.name for p in out.iterdir()) == ["hero.json", "hero.png", "hero.tres"]
    assert len(_regions(tres)) == 8  # kept and updated, not deleted for a hero_godot.zip
    hop = companion(
        url, daemon.home, "animate", str(project / "art" / "hero.png"), "--prompt", "hop",
        *GODOT, "--frame-count", "6", *SHORT, "--out", str(out),
    )  # fmt: skip
    assert hop.returncode == 0, hop.stderr
    assert sorted(p.name for p in out.iterdir()) == ["hero.json", "hero.png", "hero.tres"]
    assert len(_regions(tres)) == 6  # the new sheet's regions, not the stale 8


def test_animate_into_a_project_refuses_the_users_resource_before_paying(
    make_sandbox,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    sandbox = make_sandbox()
    api = Api(sandbox.base_url, key=TEST_KEY)
    balance = api.get("/credits/balance").json["available"]
    game = tmp_path / "g"
    out = game / "animations"
    out.mkdir(parents=True)
    (game / "project.godot").write_text("config_version=5\n")
    draw_character(64).save(game / "hero.png")
    (out / "hero.tres").write_text('[gd_resource type="SpriteFrames" format=3]\n')  # the user's
    refused = companion(
        sandbox.base_url, tmp_path / "home", "animate", str(game / "hero.png"), "--prompt",
        "hop", *GODOT, "--frame-count", "4", *SHORT, "--out", str(out), "--json",
    )  # fmt: skip
    assert refused.returncode == 2, refused.stderr
    assert "hero.tres was not written by the companion" in refused.stderr
    assert "nothing was spent" in refused.stderr
    assert tasks(api) == [] and api.get("/credits/balance").json["available"] == balance
    assert sorted(p.name for p in out.iterdir()) == ["hero.tres"]


@pytest.mark.godot
@pytest.mark.slow
def test_a_cli_re_cut_of_a_daemon_job_plays_in_real_godot(
    daemon: DaemonThread,
    real_godot: Godot,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The scene's SpriteFrames, re-cut from the command line, loads and plays its new
    frames in the engine itself (it used to be deleted for a hero_godot.zip)."""
    project = game(tmp_path / "game", harness=False)
    plugin = ScriptedPlugin(daemon.home, "godot", project)
    plugin.refresh()
    body = plugin.body("art/hero.png", "idle", ["godot_pack"], 64, 4, 1)
    plugin.quote(body)
    made = plugin.poll(plugin.animate(body))
    assert made["state"] == "done", made
    recut = companion(
        daemon.settings.base_url, daemon.home, "recut", made["id"][:8], *GODOT,
        "--frame-count", "8", "--width", "64", "--height", "64",
        "--out", str(project / "animations"),
    )  # fmt: skip
    assert recut.returncode == 0, recut.stderr
    played = play(real_godot, project, tmp_path / "godot", ["res://animations/hero.tres"])
    hero = played["res://animations/hero.tres"]
    assert hero["loaded"] and hero["count"] == 8 and hero["missing"] == 0, hero
    assert hero["sizes"] == [[64, 64]] and len(hero["shown"]) >= 3, hero


def test_a_folder_that_becomes_a_project_keeps_one_set_per_name(
    index_video: Path, tmp_path: Path
) -> None:
    """hero exported as a plain folder's pack, then again once the folder is a Godot
    project: the archive of the old layout goes, the engine's files come in."""
    home = tmp_path / "home"
    game = tmp_path / "g"
    out = game / "animations"
    out.mkdir(parents=True)
    args = ["export", str(index_video), *GODOT, "--name", "hero", "--frame-count", "4"]
    args += ["--width", "64", "--height", "64", "--out", str(out)]
    plain = companion("http://127.0.0.1:9", home, *args)
    assert plain.returncode == 0, plain.stderr
    assert sorted(p.name for p in out.iterdir()) == ["hero.json", "hero.png", "hero_godot.zip"]
    (game / "project.godot").write_text("config_version=5\n")
    engine = companion("http://127.0.0.1:9", home, *args)
    assert engine.returncode == 0, engine.stderr
    assert sorted(p.name for p in out.iterdir()) == ["hero.json", "hero.png", "hero.tres"]
