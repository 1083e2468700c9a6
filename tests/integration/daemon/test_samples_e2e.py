"""End to end on the sandbox: the daemon plus a script making exactly the plugins' calls
leaves a ready animation in the sample Godot project and the sample Unity project."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.daemon import DaemonThread
from tests.support.engine_checks import check_sprite_clip, check_sprite_frames, project_metas
from tests.support.paths import REPO
from tests.support.plugin_script import ScriptedPlugin, plugin_endpoints

SAMPLES = REPO / "samples"
GODOT_SOURCES = sorted((REPO / "engine_plugins" / "godot").rglob("*.gd"))
UNITY_SOURCES = sorted((REPO / "engine_plugins" / "unity").rglob("*.cs"))


def sample(name: str, tmp_path: Path) -> Path:
    """A working copy of a sample project, the plugin's files copied in, not linked."""
    copy = tmp_path / name
    shutil.copytree(SAMPLES / name, copy, symlinks=False)
    return copy


def sheet_frame_count(json_file: Path) -> int:
    return len(json.loads(json_file.read_text())["frames"])


@pytest.mark.slow
def test_godot_sample_gets_a_ready_sprite_frames(daemon: DaemonThread, tmp_path: Path) -> None:
    project = sample("godot", tmp_path)
    assert (project / "addons" / "companion" / "plugin.cfg").is_file()  # the plugin is in
    plugin = ScriptedPlugin(daemon.home, "godot", project)
    assert plugin.refresh()["balance"] > 0
    assert plugin.events_open().startswith(b": connected")
    body = plugin.body("art/hero.png", "idle breathing", ["godot_pack"], 128, 12)
    credits = plugin.quote(body)
    assert credits > 0
    job = plugin.poll(plugin.animate(body))
    assert job["state"] == "done", job
    assert job["resource"] == "res://animations/hero.tres"
    found = check_sprite_frames(project, job["resource"])
    assert found.textures == ["res://animations/hero.png"]
    assert found.frames == sheet_frame_count(project / "animations" / "hero.json")
    assert found.speed == pytest.approx(12.0)
    assert not list(project.rglob("*.zip")) and not list(project.rglob("*.import"))
    # The dock's Cancel and Approve reach the daemon too (on a finished job: no effect).
    assert plugin.cancel(job["id"]).json["state"] == "done"
    assert plugin.approve(job["id"]).status == 409
    # Install (free) is for a paid job whose outputs did not go in; this one's did.
    assert plugin.install_free(job["id"]).json["error"]["code"] == "NOT_RETRYABLE"
    # The studio's calls: the model listing, the generations panel and a variations quote,
    # which spends nothing and prices the count at the single job's price.
    assert plugin.models()
    listed = plugin.generations()
    assert listed[0]["id"] == job["id"]
    low, high = plugin.variation_bounds()
    before = plugin.refresh()["balance"]
    offer = plugin.quote_variations(job["id"], low)
    assert offer["credits_total"] == low * offer["credits_each"] > 0
    assert plugin.refresh()["balance"] == before and high >= low
    # The panel's free actions: a re-cut over a range of the contact sheet, an import
    # elsewhere, its folder shown, its files removed.
    sheet, _ = plugin.contact_sheet(job["id"], [0.0, 0.5, 1.0], picture_too=False)
    start = sheet["cells"][1]["source_time_seconds"]
    recut = plugin.recut(job["id"], {
        "export": {"frame_count": 5, "output_width": 64, "output_height": 64,
                   "output_formats": ["spritesheet", "spritesheet_json", "godot_pack"]},
        "selection": {"mode": "range", "start_seconds": start, "duration_seconds": 0.5},
    })  # fmt: skip
    assert check_sprite_frames(project, plugin.poll(recut["id"])["resource"]).frames == 5
    assert plugin.refresh()["balance"] == before
    moved = plugin.poll(plugin.import_again(job["id"], "elsewhere")["id"])
    assert plugin.reveal(moved["id"]) == moved["target_dir"] == str(project / "elsewhere")
    assert plugin.remove_files(moved["id"])["removed"]
    # Two pictures selected in the FileSystem: one batch, each named after its picture.
    made = plugin.batch(body, ["art/slime.png", "art/coin.png"])
    assert [plugin.poll(j["id"])["resource"] for j in made] == [
        "res://animations/slime.tres", "res://animations/coin.tres"]  # fmt: skip
    character_set(plugin, body)
    assert plugin.called == plugin_endpoints(GODOT_SOURCES)


@pytest.mark.slow
def test_unity_sample_gets_sliced_sprites_and_a_clip(daemon: DaemonThread, tmp_path: Path) -> None:
    project = sample("unity", tmp_path)
    manifest = json.loads((project / "Packages" / "manifest.json").read_text())
    reference = manifest["dependencies"]["dev.companion.animate"]
    package = SAMPLES / "unity" / "Packages" / reference.removeprefix("file:")
    assert json.loads((package / "package.json").read_text())["name"] == "dev.companion.animate"
    plugin = ScriptedPlugin(daemon.home, "unity", project)
    plugin.refresh()
    assert plugin.health()
    # The window reads the daemon's limits into Limits {size, frame_count, fps, seconds},
    # each {min, max}; a daemon that reports none leaves the checks to Quote.
    read = ("size", "frame_count", "fps", "seconds")  # the window ignores any other
    assert set(read) <= set(plugin.limits)
    assert all(set(plugin.limits[name]) <= {"min", "max"} for name in read)
    body = plugin.body("Assets/Art/slime.png", "bounce", ["unity_pack"], 128, 10)
    plain = plugin.quote(body)
    # The window's Advanced rows, as it sends them for a model that takes each one.
    model = next(m for m in plugin.models() if m["supports_last_frame"])
    assert model["max_reference_images"] >= 1 and model["supports_negative_prompt"]
    style = next(s for s in model["style_presets"] if s != "none")
    body["video"].update(model=model["id"], seed=7, resolution=model["resolutions"][0],
                         style_preset=style,
                         transparency={"mode": "alpha_key", "key_color": "#00FF00",
                                       "key_selection": "manual"})  # fmt: skip
    body.update(last_frame_path="Assets/Art/hero.png", reference_paths=["Assets/Art/coin.png"],
                negative_prompt="blurry")  # fmt: skip
    assert plugin.quote(body) > plain > 0  # the last frame and the reference are priced
    job = plugin.poll(plugin.animate(body))
    assert job["state"] == "done", job
    assert job["resource"] == "Assets/Animations/slime.anim"
    clip = check_sprite_clip(project, job["resource"])
    assert clip.sample_rate == pytest.approx(10.0)
    assert clip.frames == sheet_frame_count(project / "Assets" / "Animations" / "slime.json")
    for file in (project / "Assets" / "Animations").iterdir():
        if file.suffix != ".meta" and not file.name.startswith("."):  # else Unity makes one
            assert file.with_name(file.name + ".meta").exists(), file
    assert len(project_metas(project)) >= 5  # the art, the sheet and the clip, all distinct
    assert not list(project.rglob("*.unitypackage"))
    assert plugin.cancel(job["id"]).json["state"] == "done"
    assert plugin.approve(job["id"]).status == 409
    # Install (free) is for a paid job whose outputs did not go in; this one's did.
    assert plugin.install_free(job["id"]).json["error"]["code"] == "NOT_RETRYABLE"
    listed = plugin.generations()[0]  # Window > Companion > Generations
    assert (listed["id"], listed["seed"], listed["model"]) == (job["id"], 7, model["id"])
    # Use these settings: the window finds the picture in the project by its full path.
    used = Path(listed["settings"]["image"]).resolve()
    assert used == (project / "Assets" / "Art" / "slime.png").resolve()
    assert listed["settings"]["export"]["frame_count"] == body["export"]["frame_count"]
    studio_actions(plugin, project, job)
    character_set(plugin, body)
    # Two pictures selected in the Project window: Assets > Animate as a batch...
    made = plugin.batch(body, ["Assets/Art/hero.png", "Assets/Art/coin.png"])
    assert [plugin.poll(j["id"])["resource"] for j in made] == [
        "Assets/Animations/hero.anim", "Assets/Animations/coin.anim"]  # fmt: skip
    assert plugin.called == plugin_endpoints(UNITY_SOURCES)


def character_set(plugin: ScriptedPlugin, body: dict[str, Any]) -> None:
    """The Character list: the form's request without its prompt, the moves, their quote,
    Animate all with that quote (approved with it when over a budget); then one move made
    again alone, priced first."""
    sent = {k: v for k, v in body.items() if k not in ("prompt", "name", "quote_id")}
    moves = [{"name": "idle", "prompt": "idle breathing", "loop": True},
             {"name": "hurt", "prompt": "recoil", "loop": False}]  # fmt: skip
    sent.update(name="knight", moves=moves)
    quote = plugin.character_quote(sent)
    assert quote["spends"] == sum(m["quote"]["spends"] for m in quote["moves"]) > 0, quote
    chosen = {**sent, "quote_id": quote["quote_id"], "approve": quote["budget"]["over"]}
    jobs = [plugin.poll(job_id) for job_id in plugin.character(chosen)]
    assert [j["name"] for j in jobs] == ["knight_idle", "knight_hurt"], jobs
    assert all(j["state"] == "done" for j in jobs), [j.get("error") for j in jobs]
    again = {**sent, "moves": sent["moves"][1:], "again": True}
    quoted = plugin.character_quote(again)
    assert quoted["spends"] > 0, quoted
    remade = plugin.character({**again, "quote_id": quoted["quote_id"],
                               "approve": quoted["budget"]["over"]})  # fmt: skip
    assert plugin.poll(remade[0])["state"] == "done"
    # The Generations list groups a character's moves by what each row says it is.
    parts = {g["name"]: g["character"] for g in plugin.generations() if g["character"]}
    assert {n: (p["character"], p["move"]) for n, p in parts.items()} == {
        "knight_idle": ("knight", "idle"), "knight_hurt": ("knight", "hurt")}  # fmt: skip


def studio_actions(plugin: ScriptedPlugin, project: Path, job: dict[str, Any]) -> None:
    """The Generations window's buttons on a finished generation, as it makes them."""
    low, _ = plugin.variation_bounds()
    quoted, again = plugin.again(job["id"])  # the price first, then that seed spent
    assert quoted["credits"] > 0
    offer = plugin.quote_variations(job["id"], low)
    made = plugin.make_variations(job["id"], offer)
    assert len(made) == low
    for started in [again, *made]:
        assert plugin.poll(started["id"])["state"] == "done"
    listed = {g["id"]: g for g in plugin.generations()}
    assert listed[again["id"]]["seed"] == quoted["seed"]  # the seed that was priced
    assert len({listed[m["id"]]["seed"] for m in made}) == low
    # Re-cut for free over a range picked on the contact sheet: nothing is spent.
    sheet, picture = plugin.contact_sheet(job["id"], [0.0, 0.5, 1.0, 1.5])
    assert picture.startswith(b"\x89PNG") and len(sheet["cells"]) == 4
    start = sheet["cells"][1]["source_time_seconds"]
    before = plugin.refresh()["balance"]
    recut = plugin.recut(job["id"], {
        "export": {"frame_count": 5, "output_width": 64, "output_height": 64,
                   "output_formats": ["spritesheet", "spritesheet_json", "unity_pack"]},
        "name": "slime", "pixel_art": True, "padding": 0,
        "selection": {"mode": "range", "start_seconds": start,
                      "duration_seconds": sheet["cells"][3]["source_time_seconds"] - start},
    })  # fmt: skip
    done = plugin.poll(recut["id"])
    assert done["state"] == "done", done
    assert check_sprite_clip(project, done["resource"]).frames == 5
    assert plugin.refresh()["balance"] == before
    # Import into another folder of the project, then remove what that import wrote.
    moved = plugin.poll(plugin.import_again(job["id"], "Assets/Elsewhere")["id"])
    assert moved["resource"] == "Assets/Elsewhere/slime.anim", moved
    assert (project / moved["resource"]).is_file()
    removed = plugin.remove_files(moved["id"])
    assert removed["kept"] == [] and str(project / moved["resource"]) in removed["removed"]
    assert not (project / moved["resource"]).exists()


@pytest.mark.parametrize("engine", ["godot", "unity"])
def test_a_pack_the_service_left_out_is_built_here(
    engine: str, daemon: DaemonThread, tmp_path: Path
) -> None:
    project = sample(engine, tmp_path)
    plugin = ScriptedPlugin(daemon.home, engine, project)
    image = "art/coin.png" if engine == "godot" else "Assets/Art/coin.png"
    body = plugin.body(image, "spin sandbox:no-packs", [f"{engine}_pack"], 64, 8)
    # The service's own export (else the video alone is bought and made here whole).
    body.update(in_place=False, trim=False, service_export=True)
    assert plugin.quote(body) > 0
    job = plugin.poll(plugin.animate(body))
    assert job["state"] == "done", job
    formats = {o["format"] for o in job["outputs"]}
    assert f"{engine}_pack" not in formats and {"spritesheet", "spritesheet_json"} <= formats
    if engine == "godot":
        assert check_sprite_frames(project, job["resource"]).frames > 0
    else:
        assert check_sprite_clip(project, job["resource"]).frames > 0
