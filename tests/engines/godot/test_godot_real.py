"""The Godot addon and the Godot files, held to a real headless Godot 4.

One editor run drives the Animate dock against a real daemon and sandbox (harness in
tests/support/godot/harness); one game run (tests/support/godot/play.gd) loads what landed and
plays it in an AnimatedSprite2D."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from companion.api.schema import ExportOptions, Selection
from companion.install import Owner, add_character_move
from companion.media import export_video, far_key_colour
from companion.media.from_schema import export_spec
from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support import godot_moves
from tests.support.alpha import GREEN, assert_keyed
from tests.support.daemon import DaemonThread
from tests.support.godot import game, play
from tests.support.plugin_script import FINAL, ScriptedPlugin
from tests.support.real_godot import Godot, in_ci, real_godot  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.godot, pytest.mark.slow]


def assert_plays(found: dict[str, Any], frames: int, fps: float, size: list[int]) -> None:
    assert found["loaded"], found
    assert found["dependencies"] and all(exists for _, exists in found["dependencies"]), found
    assert found["count"] == frames and found["speed"] == pytest.approx(fps), found
    assert found["missing"] == 0 and found["sizes"] == [size], found
    assert found["filter_clip"] and found["playing"] and found["loop"], found
    assert len(found["shown"]) >= 3, f"the sprite did not advance: {found['shown']}"


def _import_params(path: Path) -> dict[str, str]:
    """The [params] section of a .import file Godot wrote, key by key as written."""
    section, params = "", {}
    for line in path.read_text().splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        elif section == "params" and "=" in line:
            key, value = line.split("=", 1)
            params[key] = value
    return params


def run_job(plugin: ScriptedPlugin, body: dict[str, Any]) -> dict[str, Any]:
    """Quote, animate, approve when the budget asks, and wait for the end."""
    plugin.quote(body)
    job_id = plugin.animate(body)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        job = dict(plugin._call("GET", f"/api/v1/jobs/{job_id}").json)
        if job["state"] == "awaiting_approval":
            plugin.approve(job_id)
        elif job["state"] in FINAL:
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish")


@pytest.fixture
def over_budget_daemon(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> Callable[[], DaemonThread]:
    """A daemon whose per-job budget (1 credit) every job is over, so each asks approval."""
    sandbox = make_sandbox(task_seconds=0.3)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("budgets:\n  per_job: 1\n")
    return lambda: DaemonThread(home, sandbox.base_url, TEST_KEY).start()


def companion_command(folder: Path) -> Path:
    """What the editor setting names for Start daemon: this checkout's companion, on a
    free port so a daemon elsewhere on the machine is never in the way."""
    script = folder / "companion-serve"
    companion = Path(sys.executable).with_name("companion")
    script.write_text(f'#!/bin/sh\nexec "{companion}" "$@" --port 0\n')
    script.chmod(0o755)
    return script


def stop_started_daemon(results: Path) -> None:
    """Stops the daemon the dock started (Start daemon), whose id the harness wrote."""
    seen = json.loads(results.read_text()) if results.is_file() else {}
    if int(seen.get("started_pid", -1)) > 0:
        os.kill(int(seen["started_pid"]), signal.SIGTERM)


def test_the_dock_does_its_job_in_a_real_editor(
    real_godot: Godot,  # noqa: F811
    over_budget_daemon: Callable[[], DaemonThread],
    tmp_path: Path,
) -> None:
    daemon = over_budget_daemon()
    project = game(tmp_path / "game", harness=True)
    (project / "drop").mkdir()
    link = tmp_path / "linked-game"
    link.symlink_to(project)
    plugin = ScriptedPlugin(daemon.home, "godot", project)
    kept = {"root": str(link), "engine": "godot", "inbox": "drop", "defaults": {"prompt": "x"}}
    assert plugin._call("POST", "/api/v1/projects", kept).status == 201
    before = plugin._call("GET", "/api/v1/projects").json["data"]
    plan = {
        "results": str(tmp_path / "editor.json"),
        "link": str(link),
        "image": "res://art/hero.png",
        "down_ready": str(tmp_path / "down-ready"),
        "down_go": str(tmp_path / "down-go"),
        "other_image": "res://art/coin.png",
        "lite_model": "sandbox-motion-lite",
        "command": str(companion_command(tmp_path)),
    }
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    godot_home = tmp_path / "godot-home"
    # To a file, not a pipe: the daemon the dock starts inherits it and outlives the editor.
    log = (tmp_path / "editor.log").open("w")
    editor = subprocess.Popen(
        real_godot.argv("--headless", "--editor", "--path", str(project)),
        env=real_godot.env(
            godot_home,
            COMPANION_HOME=str(daemon.home),
            COMPANION_TEST_PLAN=str(tmp_path / "plan.json"),
            # For the daemon the dock starts itself (Start daemon): the same sandbox.
            COMPANION_BASE_URL=str(daemon.settings.base_url),
            COMPANION_API_KEY=TEST_KEY,
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    running = True
    try:
        deadline = time.monotonic() + 120
        while not Path(plan["down_ready"]).exists() and editor.poll() is None:
            assert time.monotonic() < deadline, "the harness never got to the daemon-down step"
            time.sleep(0.2)
        after = plugin._call("GET", "/api/v1/projects").json["data"]
        jobs = plugin._call("GET", "/api/v1/jobs").json["data"]
        daemon.stop()
        running = False
        Path(plan["down_go"]).write_text("go")
        editor.wait(timeout=90)
    finally:
        if editor.poll() is None:
            editor.kill()
        if running:
            daemon.stop()
        stop_started_daemon(Path(plan["results"]))
        log.close()
    output = (tmp_path / "editor.log").read_text()
    assert Path(plan["results"]).is_file(), output[-3000:]
    seen = json.loads(Path(plan["results"]).read_text())
    assert seen["failure"] == "", seen
    errors = [line for line in output.splitlines() if "ERROR" in line]
    assert not errors, output[-3000:]

    # Status and limits, from the daemon.
    assert seen["status_label"].startswith("Live · balance"), seen  # a keyed sandbox
    assert seen["limits"] == {
        "width": [16, 1024],  # 16 to 63 px frames are made here
        "height": [16, 1024],
        "fps_max": 60,
        "seconds": [1, 10],  # the daemon's 0.5 to 30, narrowed by the default model
        "max_frames": 240,
    }
    # The picture (128 px, transparent background) untouched: its own size and
    # transparency shown, and left to the daemon, which decides them as for every door.
    defaults = seen["picture_defaults"]
    assert defaults["size"] == [128, 128] and defaults["transparent"], defaults
    assert "output_width" not in defaults["export"], defaults
    assert "transparency" not in defaults["video"] and defaults["video"]["model"], defaults
    # What landed: the background keyed out (corners clear), no key colour left.
    with Image.open(project / "art" / "hero.png") as picture:
        key = far_key_colour(picture)  # the colour the companion asked for
    assert_keyed(project / "animations" / "hero.png", key)
    assert_keyed(project / "animations" / "hero.png", GREEN)
    # Registration: the linked spelling is the same folder, so nothing was re-registered.
    assert seen["same_folder"] and not seen["other_folder"]
    assert after == before, "the dock's registration changed the project's settings"
    # 60 fps x 10 s: the dock says the frames are capped, and asks for the cap.
    assert "240" in seen["clamped_quote"] and "24.0 fps" in seen["clamped_quote"], seen
    assert seen["clamped_frames"] == 240
    # Quote, animate, approve, done: one finish, one scan, the resource selected.
    assert "credits" in seen["quote_message"] and seen["animate_text"].startswith("Animate (")
    main = seen["main"]
    assert "over your budget" in main["approval_message"], main
    assert main["job"]["state"] == "done" and main["finishes"] == 1, main
    assert any(m.startswith("Animating") for m in main["messages"]), main
    assert main["progress"][-1] == pytest.approx(1.0), main
    # The same picture quoted again (another prompt): the dock says, before anything is
    # paid, that the main job's unchanged files are replaced, and how to get them back.
    assert "Replaces" not in seen["quote_message"], seen["quote_message"]
    replaced, resource = seen["replaces_quote"], str(main["job"]["resource"])
    assert f"Replaces {resource.removeprefix('res://')} and 2 more files" in replaced, replaced
    assert f"(job {main['job']['id'][:8]}, from an earlier generation;" in replaced, replaced
    assert "Generations > Import brings it back" in replaced, replaced
    resource = main["job"]["resource"]
    assert resource == "res://animations/hero.tres" and main["message"] == f"Done: {resource}"
    assert seen["selected"] == resource and seen["edited"] == resource, seen
    assert seen["scans"] == 1 and seen["scans_at_end"] == 2, seen  # the free press lands too
    # The same settings quoted again once it is done: Animate spends nothing (the main job
    # made exactly this), says so, and pressing it answers that job: no new job is made.
    made = seen["made_quote"]
    assert made["animate_text"] == "Animate (free: already made)", made
    assert made["spends"] == 0 and made["credits"] > 0, made
    assert f"job {main['job']['id'][:8]} already made exactly this" in made["message"], made
    assert f"Generate again makes a new one at {made['credits']} credits" in made["message"]
    assert "Replaces" not in made["message"], made
    pressed = seen["made_pressed"]
    assert pressed["job"]["id"] == main["job"]["id"] and pressed["finishes"] == 1, pressed
    assert pressed["job"]["state"] == "done" and not pressed["approval"], pressed
    # Other frames a second: the same generation, so the button says it is a free re-cut.
    recut = seen["recut_quote"]
    assert recut["animate_text"] == "Animate (free: re-cut of the kept clip)", recut
    assert recut["spends"] == 0 and recut["credits"] > 0, recut
    assert f"job {main['job']['id'][:8]} generated this picture" in recut["message"], recut
    # Cancel while it waits for approval; a job the service rejects.
    cancelled, failed = seen["cancelled"], seen["failed"]
    assert cancelled["job"]["state"] == "cancelled" and cancelled["finishes"] == 1, cancelled
    assert cancelled["message"].startswith("The job cancelled"), cancelled
    assert "null" not in cancelled["message"], cancelled
    # A job ended without error text ("error": null): the dock says only what happened.
    assert seen["null_error_message"] == "The job cancelled.", seen
    assert failed["job"]["state"] == "failed" and failed["finishes"] == 1, failed
    assert failed["message"].startswith("The job failed:") and len(failed["message"]) > 20
    assert seen["finishes"] == ["done", "done", "cancelled", "failed"]
    # The daemon stopped: the dock says so, offers to start it, and connects by itself.
    assert seen["down_in_time"], seen  # no Refresh pressed: the event stream's end told it
    assert seen["down_status"] == "Offline: the companion daemon is not running"
    assert seen["down_generations"].startswith("Offline"), seen  # the Generations tab too
    assert "companion serve" in seen["down_message"] and seen["start_visible"], seen
    assert seen["starting_message"].startswith("Starting the daemon"), seen
    assert seen["restarted_status"].startswith("Live · balance"), seen
    assert not seen["restarted_start_visible"] and seen["started_pid"] > 0, seen

    # Generations: this project's three jobs, newest first, from the restarted daemon; the
    # one that is done plays when selected.
    listed = seen["generations"]
    assert seen["listed_after_restart"], seen
    assert [g["state"] for g in listed] == ["failed", "cancelled", "done"], listed
    assert [g["id"] for g in listed] == [j["id"] for j in jobs], (listed, jobs)
    assert seen["generations_summary"].startswith("3 generations"), seen
    cells = seen["generations_cells"]
    assert cells[2][1:4] == ["done", "hero", str(int(main["job"]["quote"]))], cells
    shown = seen["generation_preview"]
    assert shown["frames"] == 16 and shown["shown"] >= 3 and shown["reveal_enabled"], shown

    # Generate again: the done one's settings, a new seed, quoted first, then made.
    again = seen["again"]
    assert again["job_id"] == "" and again["quote_id"], again  # quoted, nothing spent yet
    assert again["prompt"] == "idle breathing" and again["image"] == "art/hero.png", again
    assert again["seed"] >= 0 and again["state"] == "done", again
    assert again["listed_id"] == again["job_id_done"] and again["listed"] == again["seed"]

    # Variations: the total quoted first (on the button), then three made with its seeds.
    variations = seen["variations"]
    quote = variations["quote"]
    assert variations["count_range"] == [2, 8], variations  # from the daemon's API
    assert quote["count"] == 3 and quote["credits_total"] == 3 * quote["credits_each"] > 0
    total = int(quote["credits_total"])  # JSON from Godot: numbers are floats
    assert variations["button"] == f"Make 3 ({total} credits)", variations
    assert variations["said"].startswith(f"3 variations cost {total} credits"), variations
    assert variations["started"] == "3 variations started.", variations
    made = variations["listed"]
    assert sorted(v["seed"] for v in made) == sorted(quote["seeds"]), made
    assert {v["kind"] for v in made} == {"variation"}, made
    assert sorted(v["name"] for v in made) == ["hero_v1", "hero_v2", "hero_v3"], made

    # Advanced options per model, from the daemon's live listing (the sandbox's two models).
    assert seen["advanced_visible"] and len(seen["model_ids"]) == 2, seen
    full, lite = seen["per_model"][seen["default_model"]], seen["per_model"]["sandbox-motion-lite"]
    assert full["last_frame"] and full["negative_prompt"] and full["transparency"], full
    assert full["references"] == "References: 0 of 8" and full["styles"], full
    assert full["seconds"] == [1, 10] and full["resolutions"] > 2, full
    # The lite model takes no last frame, negative prompt, style or transparency.
    assert not lite["last_frame"] and not lite["negative_prompt"], lite
    assert not lite["styles"] and not lite["transparency"], lite
    assert lite["references"] == "References: 0 of 2" and lite["seconds"] == [1, 4], lite
    assert lite["resolutions"] == 3, lite  # "model default", 360p, 480p
    # Seconds offers only the lengths the model lists: 7 s becomes 8 going up, 6 going down.
    seven = seen["seven"]
    assert seven["offered"] == [1, 2, 3, 4, 5, 6, 8, 10], seven
    assert seven["up"] == 8 and seven["down"] == 6, seven
    assert seven["tooltip"] == "This model makes videos of 1, 2, 3, 4, 5, 6, 8, 10 s.", seven
    quoted = seen["lite_quote"]
    assert quoted["credits"] > 0 and quoted["message"].startswith("This will cost"), quoted
    assert quoted["video"]["duration_seconds"] == 3, quoted  # a listed length, as chosen
    assert quoted["video"]["model"] == "sandbox-motion-lite" and quoted["video"]["seed"] == 42
    assert seen["model_change_dropped"], seen

    # The picture chosen is shown; the latest result plays in the dock.
    assert seen["picture_size"] == [128, 128], seen
    playing = seen["result_playing"]
    assert playing["frames"] == 16 and playing["shown"] >= 3, playing
    assert playing["caption"] == "Latest result: hero.tres", playing
    # A quote belongs to what it priced: spent once, then Animate needs a new one (it stays
    # disabled after another image, which is only quoted, nothing spent) and any change
    # drops that quote.
    assert seen["after_done"] == {"animate_disabled": True, "animate_text": "Animate"}, seen
    other = seen["other_image"]
    assert other["animate_disabled"], other
    assert other["job_id"] == "" and other["quoted"] > 0, other
    assert "credits" in other["message"], other
    dropped = {"animate_disabled": True, "animate_text": "Animate", "quoted": -1}
    assert seen["changed"] == dropped, seen
    silent = seen["silent_change"]
    assert silent["job_id"] == "" and silent["new_quote"], silent
    # Every quote came with the daemon's id, which Animate sends.
    assert all(q["quote_id"] for q in seen["quotes"]), seen["quotes"]
    then = seen["changed_then_quote"]
    assert then["job_id"] == "" and then["message"].startswith("This will cost"), then
    assert then["animate_enabled"], then
    assert len(jobs) == 3, [j["state"] for j in jobs]  # main, cancelled, failed: no more

    # The game plays what the dock made.
    frames = len(json.loads((project / "animations" / "hero.json").read_text())["frames"])
    played = play(real_godot, project, godot_home, [resource])
    assert_plays(played[resource], frames, 8.0, [128, 128])


def test_real_godot_plays_every_shape_of_output(
    real_godot: Godot,  # noqa: F811
    over_budget_daemon: Callable[[], DaemonThread],
    index_video: Path,
    tmp_path: Path,
) -> None:
    daemon = over_budget_daemon()
    project = game(tmp_path / "game", harness=False)
    plugin = ScriptedPlugin(daemon.home, "godot", project)
    try:
        # Past 8192 px: 66 frames of 1024 px make a full 8x8 page and a second one.
        two_pages = plugin.body("art/slime.png", "bounce", ["godot_pack"], 1024, 33, 2)
        # Untrimmed (an engine pack is trimmed by default, and fits one page then).
        big = run_job(plugin, {**two_pages, "trim": False})
        # Into a nested folder, named by the request.
        nested_body = plugin.body("art/coin.png", "spin", ["godot_pack"], 64, 10)
        nested = run_job(plugin, {**nested_body, "target_folder": "animations/chars/hero"})
    finally:
        daemon.stop()
    assert big["state"] == "done" and nested["state"] == "done", (big, nested)
    assert nested["resource"] == "res://animations/chars/hero/coin.tres"
    # A pixel-art export's godot_pack, unzipped by hand somewhere else in the project.
    options = ExportOptions(
        frame_count=12, output_width=64, output_height=64, output_formats=["godot_pack"]
    )
    spec = export_spec(options, Selection(), name="pixel", key_color=None, pixel_art=True)
    pack = next(o.path for o in export_video(index_video, tmp_path, spec).outputs)
    by_hand = project / "somewhere" / "else"
    with zipfile.ZipFile(pack) as archive:
        archive.extractall(by_hand)
    # Characters made of a move each: the pixel-art one's scene filters nearest, the
    # other's draws as its parent does.
    for name, frames, pixel_art in (
        ("pixel_hero", by_hand / "pixel.tres", True),
        ("coin_hero", project / nested["resource"].removeprefix("res://"), False),
    ):
        add_character_move(
            project, frames.parent, character=name, move="idle", loop=True, autoplay="idle",
            move_frames=frames, owner=Owner(None, name, name), pixel_art=pixel_art,
        )  # fmt: skip
    pixel_scene = "res://somewhere/else/pixel_hero.tscn"
    coin_scene = "res://animations/chars/hero/coin_hero.tscn"
    played = play(
        real_godot,
        project,
        tmp_path / "godot-home",
        [big["resource"], nested["resource"], "res://somewhere/else/pixel.tres", pixel_scene,
         coin_scene],
    )  # fmt: skip
    slime = played[big["resource"]]
    assert_plays(slime, 66, 33.0, [1024, 1024])
    assert slime["atlases"] == {
        "res://animations/slime_p0.png": [8192, 8192],  # a full page of 8 x 8
        "res://animations/slime_p1.png": [2048, 1024],
    }
    assert_plays(played[nested["resource"]], 20, 10.0, [64, 64])
    pixel = played["res://somewhere/else/pixel.tres"]
    assert_plays(pixel, 12, 6.0, [64, 64])
    assert list(pixel["atlases"]) == ["res://somewhere/else/pixel.png"]
    nearest = played[pixel_scene]
    assert nearest["loaded"] and nearest["type"] == "AnimatedSprite2D", nearest
    assert nearest["nearest"] and nearest["texture_filter"] == 1, nearest  # NEAREST
    assert nearest["sprite_frames"] == "res://somewhere/else/pixel_hero.tres", nearest
    smooth = played[coin_scene]
    assert smooth["loaded"] and not smooth["nearest"] and smooth["texture_filter"] == 0, smooth
    # Godot's own import of a pixel-art sheet: lossless, no mipmaps (its 2D defaults,
    # which nothing of the companion's changes).
    params = _import_params(by_hand / "pixel.png.import")
    assert params["compress/mode"] == "0" and params["mipmaps/generate"] == "false", params


@pytest.mark.skipif(
    shutil.which("xvfb-run") is None and not in_ci(), reason="needs Xvfb (apt-get install xvfb)"
)
@pytest.mark.timeout(900)  # two jobs drawn by a software renderer: slow on a busy machine
def test_the_dock_is_seen_in_a_real_editor_window(
    real_godot: Godot,  # noqa: F811
    over_budget_daemon: Callable[[], DaemonThread],
    tmp_path: Path,
) -> None:
    """The real editor under Xvfb, 1600x1000, OpenGL: the Companion tab of the bottom panel
    open at its default height with the prompt, Quote and Animate, the picture and the
    latest result playing in view, then the Generations tab with two names sharing a
    prefix, its re-cut form and contact sheet (zoomed); then a character's moves and a batch
    (tests/support/godot_moves.py). The screenshots are kept in the docs
    (docs/images/godot-dock.png, godot-generations.png, godot-moves.png and godot-character.png
    beside it) when COMPANION_KEEP_SCREENSHOT names the first."""
    daemon = over_budget_daemon()
    project = game(tmp_path / "game", harness=True)
    shot = tmp_path / "dock.png"
    plan = {"results": str(tmp_path / "editor.json"), "image": "res://art/hero.png"}
    plan["screenshot"] = str(shot)
    plan["screenshot_generations"] = str(tmp_path / "generations.png")
    plan.update(godot_moves.plan(tmp_path))
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    env = real_godot.env(
        tmp_path / "godot-home",
        COMPANION_HOME=str(daemon.home),
        COMPANION_TEST_PLAN=str(tmp_path / "plan.json"),
    )
    # Xvfb has no sound card: the dummy audio driver, rather than PulseAudio and ALSA
    # probed and failing at start (where one run aborted inside the editor).
    editor_args = ["--editor", "--rendering-driver", "opengl3", "--audio-driver", "Dummy"]
    editor_args += ["--resolution", "1600x1000"]
    screen = ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24"]
    try:
        done = subprocess.run(
            [*screen, *real_godot.argv(*editor_args, "--path", str(project))],
            env=env,
            capture_output=True,
            text=True,
            timeout=480,
            check=False,
        )
    finally:
        daemon.stop()
    assert Path(plan["results"]).is_file(), (
        f"editor exit {done.returncode}: " + (done.stdout + done.stderr)[-3000:]
    )
    seen = json.loads(Path(plan["results"]).read_text())
    assert seen["failure"] == "" and seen["job"]["state"] == "done", seen
    assert seen["window"] == [1600, 1000] and seen["visible"], seen
    # The dock, the picture and the result are on screen, each with room to be seen.
    for name in ("dock_rect", "picture_rect", "result_rect"):
        x, y, width, height = seen[name]
        assert x >= 0 and y >= 0 and x + width <= 1600 and y + height <= 1000, (name, seen)
        assert width >= 100 and height >= 100, (name, seen)
    # At the panel's default height the prompt, Quote and Animate are inside the part of
    # the panel on screen, without scrolling (they were below the fold).
    vx, vy, vw, vh = seen["visible_rect"]
    assert vy + vh <= 1000, seen
    for name in ("prompt_rect", "quote_rect", "animate_rect"):
        x, y, width, height = seen[name]
        assert width > 0 and height > 0, (name, seen)
        assert vx <= x and vy <= y and x + width <= vx + vw and y + height <= vy + vh, (name, seen)
    assert seen["tab_title"] == "Companion", seen  # not to be taken for Godot's Animation tab
    # The result is described by its frame size and count.
    assert seen["result_info"] == "128x128 px · 16 frames · 8 fps", seen["result_info"]
    image = Image.open(shot).convert("RGB")
    assert image.size == (1600, 1000)
    # Where the picture and the result are drawn, the screen is not one flat colour.
    for name in ("picture_rect", "result_rect"):
        x, y, width, height = (int(v) for v in seen[name])
        colours = image.crop((x, y, x + width, y + height)).getcolors(maxcolors=100000)
        assert colours is not None and len(colours) > 20, name
    # The Generations tab: the list, the result playing and the contact sheet of its
    # kept video in the re-cut form, each on screen and drawn.
    listed = Image.open(plan["screenshot_generations"]).convert("RGB")
    # The selected result plays beside the list until the re-cut form opens, whose
    # contact sheet shows its frames: the list keeps the room.
    assert not seen["preview_visible"], seen
    for name in ("list_rect", "sheet_rect"):
        x, y, width, height = (int(v) for v in seen[name])
        assert x >= 0 and y >= 0 and x + width <= 1600 and y + height <= 1000, (name, seen)
        assert width >= 100 and height >= 100, (name, seen)
        colours = listed.crop((x, y, x + width, y + height)).getcolors(maxcolors=100000)
        assert colours is not None and len(colours) > 20, name
    # Two names sharing their first 7 letters are both there in full, their cells as wide
    # as their text (every name read "knight..." before), with the list beside the open
    # re-cut form.
    names = {entry["text"]: entry for entry in seen["names"]}
    assert sorted(names) == ["knight_dance", "knight_idle"], seen["names"]
    for entry in seen["names"]:
        assert entry["tooltip"] == entry["text"] and entry["column"] > entry["needs"], entry
    assert seen["recut_open"], seen
    # Zoomed, the contact sheet is drawn twice as big.
    width, height, zoomed_width, zoomed_height = seen["zoom"]
    assert zoomed_height == 2 * height and zoomed_width >= 2 * min(width, 340), seen["zoom"]
    assert not godot_moves.editor_errors(done.stdout + done.stderr), (done.stdout + done.stderr)[
        -4000:
    ]
    godot_moves.check(seen, project, tmp_path)
    keep = os.environ.get("COMPANION_KEEP_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)
        shutil.copy(plan["screenshot_generations"], Path(keep).with_name("godot-generations.png"))
        shutil.copy(plan["screenshot_moves"], Path(keep).with_name("godot-moves.png"))
        shutil.copy(plan["screenshot_scene"], Path(keep).with_name("godot-character.png"))
