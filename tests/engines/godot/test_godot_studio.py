"""The studio in a real headless Godot editor, each control pressed as a user does
(harness: tests/support/godot/harness/studio.gd): pickers, the quote with balance and budget, a
free re-cut picked on a contact sheet, import elsewhere, Remove files (cancelled, then
confirmed), Show in file browser, re-animating into a SpriteFrames the user extended, the
free name a conflict offers taken, a name typed into the Name box, an asked-for
replacement, and the Generations list after an editor restart.
Two editor starts and one game run."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from companion.install.safety.set_aside import ASIDE
from companion.jobs import pixel_facts
from companion.media import far_key_colour
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import tasks
from tests.support.daemon import DaemonThread, call
from tests.support.godot import editor, finished, game, play
from tests.support.real_godot import Godot, real_godot  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.godot, pytest.mark.slow]


def test_the_studio_in_a_real_editor(
    real_godot: Godot,  # noqa: F811
    make_sandbox: Any,
    tmp_path: Path,
) -> None:
    sandbox = make_sandbox(task_seconds=0.3)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    (home / "companion").mkdir(parents=True)
    budgets = "budgets:\n  per_job: 10000\n  per_day: 100000\n"
    (home / "companion" / "config.yaml").write_text(budgets)
    project = game(tmp_path / "game", harness=True)
    start_balance = api.get("/credits/balance").json["available"]
    plan = {
        "studio": True,
        "results": str(tmp_path / "first.json"),
        "image": "res://art/hero.png",
        "last_frame": "res://art/coin.png",
        "reference": "res://art/slime.png",
    }
    (tmp_path / "first-plan.json").write_text(json.dumps(plan))
    daemon = DaemonThread(home / "companion", sandbox.base_url, TEST_KEY).start()
    try:
        first = editor(real_godot, project, home, tmp_path / "first-plan.json", tmp_path / "1.log")
        seen = finished(first, tmp_path / "1.log", Path(plan["results"]))
        query = f"/api/v1/generations?project={project}/"
        listed = call(daemon, "GET", query).json["data"]
    finally:
        daemon.stop()

    # The pickers: a file selected in the FileSystem, the row's button pressed.
    pickers = seen["pickers"]
    assert pickers["last_frame"] == "Last frame: coin.png", pickers
    assert pickers["references"].startswith("References: 1 of "), pickers
    assert pickers["sent"]["last_frame_path"] == "art/coin.png", pickers
    assert pickers["sent"]["reference_paths"] == ["art/slime.png"], pickers
    # The price with the balance and budgets beside it.
    said = seen["first_quote"]["message"]
    assert f"(balance {start_balance}, budget 10000 a job, 0 of 100000 spent today)" in said
    first_job = seen["first"]
    assert first_job["state"] == "done", first_job
    by_id = {g["id"]: g for g in listed}
    settings = by_id[first_job["id"]]["settings"]
    assert settings["last_frame"] == str(project / "art" / "coin.png"), settings
    assert settings["references"] == [str(project / "art" / "slime.png")], settings

    # Use these settings: the whole request back in the form, the picked files too.
    used = seen["used"]
    assert used["last_frame"] == "Last frame: coin.png" and used["fps"] == 8, used
    assert used["references"] == pickers["references"], used
    for key in ("last_frame_path", "reference_paths", "export", "prompt", "image_path"):
        assert used["sent"][key] == pickers["sent"][key], key
    keyed = {"mode": "alpha_key", "key_color": "#ff00aa", "key_selection": "manual"}
    # The first job's own: its picture has transparent pixels, so the daemon asked for a
    # keyed video on a colour far from the picture's hues; using its settings asks again.
    made_on = settings["video"]["transparency"]
    assert made_on["mode"] == "alpha_key" and made_on["key_color"], settings
    assert seen["used_transparency"] == {"keyed": keyed, "plain": made_on}, seen
    assert settings["export"]["transparent"] == {"enabled": True}, settings
    # The re-cut form, its range picked on the contact sheet, spending nothing.
    opened = seen["recut_opened"]
    assert opened["visible"] and opened["frames"] == 16 and opened["clip_seconds"] > 0, opened
    assert seen["sheet"]["cells"] == 8 and seen["sheet"]["texture"][0] > 0, seen["sheet"]
    picked = seen["picked"]
    assert picked["start"] == pytest.approx(picked["cell_1"], abs=0.01), picked
    assert picked["end"] == pytest.approx(picked["cell_6"], abs=0.01), picked
    assert picked["end"] > picked["start"] and picked["said"].startswith("From"), picked
    assert "gif" in seen["recut_gif_formats"], seen["recut_gif_formats"]
    body = seen["recut_body"]
    assert body["selection"]["mode"] == "range" and body["pixel_art"] and body["padding"] == 2
    assert seen["recut"]["said"].startswith("Re-cut done, nothing spent"), seen["recut"]
    recut = seen["recut"]["listed"]
    assert (recut["kind"], recut["name"], recut["cost_credits"]) == ("recut", "hero_cut", 0)
    # The selection and the form stay on the generation re-cut; its re-cut is listed under
    # it, naming it.
    assert seen["recut"]["selected_after"] == first_job["id"], seen["recut"]
    assert seen["recut"]["form_of"] == first_job["id"], seen["recut"]
    assert seen["recut"]["under"] == first_job["id"], seen["recut"]
    assert seen["recut"]["cells"][2] == "hero_cut · re-cut of hero", seen["recut"]
    # The same re-cut over a sheet the user painted: refused saying so, then on the second
    # press made, their sheet moved aside.
    assert "was changed since" in seen["recut_refused"], seen["recut_refused"]
    assert "Press Re-cut again to replace it" in seen["recut_refused"]
    assert seen["recut_replaced"]["said"].startswith("Re-cut done"), seen["recut_replaced"]
    painted = project / "animations" / ASIDE / seen["recut_replaced"]["id"] / "hero_cut.png"
    assert Image.open(painted).size == (8, 8)

    # Import into its own folder, and elsewhere; then those files removed after asking.
    home_import = seen["imported_home"]
    assert home_import["said"].startswith("Imported, nothing spent"), home_import
    assert home_import["row"]["target_dir"] == str(project / "animations"), home_import
    assert home_import["row"]["parent"] == first_job["id"], home_import
    imported = seen["imported"]
    assert imported["said"].startswith("Imported, nothing spent"), imported
    assert imported["row"]["target_dir"] == str(project / "elsewhere"), imported
    asked = seen["remove_asked"]
    assert asked["visible"] and asked["text"].startswith("Remove the files of hero"), asked
    # Cancel first: the dialog closes, nothing is said or removed, and the generation is
    # still listed (read again from the daemon) with its files on disk.
    cancelled = seen["remove_cancelled"]
    names = sorted(Path(f).name for f in cancelled["files_before"])
    assert names == ["hero.json", "hero.png", "hero.tres"], cancelled
    assert all(Path(f).parent == project / "elsewhere" for f in cancelled["files_before"])
    assert cancelled["on_disk"] == cancelled["files_before"], cancelled
    assert cancelled["files"] == cancelled["files_before"], cancelled
    assert not cancelled["visible"] and cancelled["said"] == cancelled["said_before"], cancelled
    assert cancelled["selected"] == imported["row"]["id"] and cancelled["remove_enabled"]
    assert cancelled["cells"][1:3] == ["done", "hero · re-cut of hero"], cancelled
    assert seen["removed"]["said"].startswith("Removed 3 files"), seen["removed"]
    assert not seen["removed"]["tres_left"] and not (project / "elsewhere" / "hero.png").exists()
    # Show in file browser: the folder the daemon named, handed to the opener.
    assert seen["revealed"]["opened"] == [str(project / "animations")], seen["revealed"]

    # Re-animating into the SpriteFrames the user extended keeps their animation and the
    # loop and speed they set; the new frames are the generated ones.
    assert seen["user_saved"] == 0 and seen["extended_quote"]["conflicts"] == 0, seen
    assert seen["extended"]["state"] == "done", seen["extended"]
    # Pixel art: the price stood; once done, its kept video was cut again, free, into it.
    assert seen["pixel_quote_kept"], seen
    assert any(m.startswith("Done; cutting it as pixel art") for m in seen["extended_messages"])
    pixel = [g for g in listed if g["parent"] == seen["extended"]["id"]]
    assert [(g["kind"], g["name"], g["cost_credits"]) for g in pixel] == [("recut", "hero", 0)]
    with Image.open(project / "art" / "hero.png") as picture:  # made on this key colour
        key = list(far_key_colour(picture))
    # In place and Loop ticked with it: one free cut does all three (keyed out again),
    # and the dock shows the loop's seam once it is done.
    # In place is ticked for the Godot pack (Loop is not); Loop ticked drops the quote.
    assert seen["finishing_defaults"] == [True, False], seen
    assert seen["loop_drops_quote"], seen
    local = pixel[0]["settings"]["local_export"]
    # As pixel art: with the art's facts, read from its picture (its own few colours).
    cut = {"pixel_art": True, "padding": 0, "key_color": key, "in_place": True, "loop": True,
           "trim": True, "pixel": pixel_facts(project / "art" / "hero.png", None)}  # fmt: skip
    assert local == cut, pixel
    assert any("Loop seam" in m for m in seen["extended_messages"]), seen["extended_messages"]
    # The dock played the pixel-art cut nearest (CanvasItem.TEXTURE_FILTER_NEAREST), and
    # the next, smooth, result as its parent draws (TEXTURE_FILTER_PARENT_NODE).
    assert (seen["pixel_player_filter"], seen["named_player_filter"]) == (1, 0), seen
    kept = seen["extended_read"]
    assert kept["wave"] == {"count": 2, "loop": True, "speed": 3.0}, kept
    assert kept["hero"] == {"count": 8, "loop": False, "speed": 5.0}, kept
    assert "default" not in kept, kept  # named after what it is

    # A changed sheet: the dock asks and offers the free name; taken, the Name box holds
    # it, the quote prices it, and the job lands under it with the user's sheet untouched.
    offered = seen["name_offered"]
    assert offered["visible"] and offered["shown"] and offered["button"] == "Use name hero_2"
    assert "hero_2" in offered["text"], offered
    taken = seen["name_taken"]
    assert taken["field"] == "hero_2" and taken["quoted"]["name"] == "hero_2", taken
    assert taken["conflicts"] == 0 and not taken["asked"], taken
    named = seen["named"]
    assert named["state"] == "done" and by_id[named["id"]]["name"] == "hero_2", named
    assert Image.open(project / "animations" / "hero_2.png").size != (8, 8)
    assert (project / "animations" / "hero_2.tres").is_file()
    assert not (project / "animations" / ASIDE / named["id"]).exists()
    # A name typed into the Name box: typing dropped the price shown, the quote priced
    # the typed name, and the job landed under it.
    typed = seen["name_typed"]
    assert typed["priced"] and typed["dropped"] and typed["field"] == "hero_walk", typed
    assert typed["message"] == "The settings changed: press Quote for the new price.", typed
    assert typed["quoted"]["name"] == "hero_walk" and typed["conflicts"] == 0, typed
    # The same picture, prompt and video as hero_2's: its kept clip is re-cut, free.
    assert typed["quote_message"].startswith("Nothing is spent"), typed
    assert "clip is kept" in typed["quote_message"], typed
    walked = seen["typed"]
    assert walked["state"] == "done" and by_id[walked["id"]]["name"] == "hero_walk", walked
    assert by_id[walked["id"]]["kind"] == "recut", by_id[walked["id"]]
    assert walked["resource"] == "res://animations/hero_walk.tres", walked
    assert (project / "animations" / "hero_walk.png").is_file()
    assert (project / "animations" / "hero_walk.tres").is_file()
    # Then the default name again: the user agreed, theirs was moved aside.
    ask = seen["replace_asked"]
    assert ask["visible"] and ask["conflicts"] == 1 and "hero.png" in ask["text"], ask
    refused = seen["replace_refused"]
    assert refused["message"].startswith("Nothing replaced, nothing spent"), refused
    assert refused["quote"] == "" and seen["replace_asked_again"], refused
    assert seen["replace_agreed"]["agreed"], seen["replace_agreed"]
    replaced = seen["replaced"]
    assert replaced["state"] == "done", replaced
    aside = project / "animations" / ASIDE / replaced["id"] / "hero.png"
    assert Image.open(aside).size == (8, 8)
    assert Image.open(project / "animations" / "hero.png").size != (8, 8)
    assert seen["replaced_read"]["wave"]["count"] == 2, seen["replaced_read"]

    # Nothing was spent but the paid jobs: one task each, their charges, no more.
    paid = [g for g in listed if g["kind"] != "recut"]
    # Three generations were asked for (three remote parts); the
    # typed name and the default name again were free re-cuts of hero_2's kept clip.
    assert len(paid) == 3 and len(tasks(api)) == 3, [(g["kind"], g["name"]) for g in listed]
    spent = start_balance - api.get("/credits/balance").json["available"]
    assert spent == sum(g["cost_credits"] for g in paid) > 0
    assert all(g["cost_credits"] == 0 for g in listed if g["kind"] == "recut")

    # The editor again, the daemon away: the panel says so, then lists the jobs.
    plan = {"studio": True, "restart": True, "results": str(tmp_path / "second.json"),
            "down_ready": str(tmp_path / "down-ready")}  # fmt: skip
    (tmp_path / "second-plan.json").write_text(json.dumps(plan))
    second = editor(real_godot, project, home, tmp_path / "second-plan.json", tmp_path / "2.log")
    deadline = time.monotonic() + 120
    while not Path(plan["down_ready"]).exists() and second.poll() is None:
        assert time.monotonic() < deadline, "the editor never said the daemon was away"
        time.sleep(0.2)
    daemon = DaemonThread(home / "companion", sandbox.base_url, TEST_KEY).start()
    try:
        again = finished(second, tmp_path / "2.log", Path(plan["results"]))
    finally:
        daemon.stop()
    assert again["offline"]["generations"].startswith("Offline"), again["offline"]
    offline = again["offline"]
    assert offline["status"] == "Offline: the companion daemon is not running", offline
    assert [row["id"] for row in again["listed"]] == [g["id"] for g in listed], again["listed"]
    assert again["status_back"].startswith("Live · balance"), again  # a keyed sandbox

    # The game plays the re-cut with its new frames, and the user's animation beside ours.
    played = play(real_godot, project, home / "godot", ["res://animations/hero_cut.tres",
                                                         "res://animations/hero.tres"])  # fmt: skip
    cut = played["res://animations/hero_cut.tres"]
    assert cut["loaded"] and cut["count"] == 6 and cut["sizes"] == [[96, 96]], cut
    assert cut["missing"] == 0 and len(cut["shown"]) >= 3 and cut["playing"], cut
    hero = played["res://animations/hero.tres"]
    assert hero["loaded"] and hero["missing"] == 0, hero
    assert hero["animations"]["wave"] == {"count": 2, "loop": True, "speed": 3.0}, hero
