"""What the Godot dock asks of the daemon beyond the one-click path: a quote shown with the
balance and budget, a last frame and references sent with the picture, an explicit
replacement of a user's changed file (moved aside, never lost), and a free re-cut with
the local export's own options, byte for byte what `companion export` makes."""

from __future__ import annotations

import tempfile
from pathlib import Path

from PIL import Image

from companion.api.schema import ExportOptions, Selection
from companion.install.godot.sprite_merge import carries_edits, merge
from companion.install.safety.set_aside import ASIDE
from companion.jobs import pixel_facts
from companion.media import PixelArt, export_video, far_key_colour
from companion.media.demo_art import draw_character
from companion.media.formats.sheet import Spacing
from companion.media.from_schema import export_spec
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import tasks
from tests.support.daemon import DaemonThread, body, call, godot_project, wait_final


def test_quote_extras_replace_and_a_pixel_recut(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(task_seconds=0.2)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("budgets:\n  per_job: 1000\n  per_day: 5000\n")
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        draw_character(64).rotate(90).save(project / "art" / "last.png")
        draw_character(64).transpose(Image.Transpose.FLIP_LEFT_RIGHT).save(
            project / "art" / "ref.png"
        )
        balance = api.get("/credits/balance").json["available"]

        # The price is shown with the balance and the budgets it is held to.
        plain = call(daemon, "POST", "/api/v1/quote", body(project)).json
        assert plain["balance"] == balance
        assert plain["budget"] == {
            "per_job": 1000,
            "per_day": 5000,
            "per_month": None,
            "spent_today": 0,
            "over": plain["credits"] > 1000,
        }

        # A last frame and a reference go with the picture; the price counts them.
        extras = {
            "last_frame_path": "art/last.png",
            "reference_paths": ["art/ref.png"],
            "negative_prompt": "blurry",
        }
        quoted = call(daemon, "POST", "/api/v1/quote", body(project, **extras))
        assert quoted.status == 200, quoted.body
        assert quoted.json["credits"] > plain["credits"]
        outside = call(daemon, "POST", "/api/v1/quote",
                       body(project, last_frame_path="../elsewhere.png"))  # fmt: skip
        assert outside.status == 400 and outside.error["message"].startswith("last_frame_path")
        sent = body(project, quote_id=quoted.json["quote_id"], **extras)
        job = call(daemon, "POST", "/api/v1/animate", sent)
        assert job.status == 202, job.body
        first = wait_final(daemon, job.json["id"])
        assert first["state"] == "done", first
        listed = call(daemon, "GET", f"/api/v1/generations?project={project}").json["data"]
        settings = listed[0]["settings"]
        assert settings["last_frame"] == str(project / "art" / "last.png")
        assert settings["references"] == [str(project / "art" / "ref.png")]
        assert listed[0]["negative_prompt"] == "blurry"
        remote = tasks(api)
        assert len(remote) == 1

        # The user paints on the sheet: the quote names it; animate refuses unless told to
        # replace it, and then the user's file is kept aside, never lost.
        sheet = project / "animations" / "hero.png"
        Image.new("RGBA", (8, 8), (255, 0, 0, 255)).save(sheet)
        painted = sheet.read_bytes()
        conflicted = call(daemon, "POST", "/api/v1/quote", body(project)).json
        assert [c["path"] for c in conflicted["conflicts"]] == [str(sheet)]
        before = api.get("/credits/balance").json["available"]
        refused = call(daemon, "POST", "/api/v1/animate",
                       body(project, quote_id=conflicted["quote_id"]))  # fmt: skip
        assert refused.status == 409 and refused.error["code"] == "CONFLICT"
        assert '"replace": true' in refused.error["message"]
        assert api.get("/credits/balance").json["available"] == before
        assert len(tasks(api)) == 1
        replaced = call(daemon, "POST", "/api/v1/animate",
                        body(project, quote_id=conflicted["quote_id"], replace=True))  # fmt: skip
        assert replaced.status == 202, replaced.body  # the quote still holds: same price
        done = wait_final(daemon, replaced.json["id"])
        assert done["state"] == "done", done
        kept = project / "animations" / ASIDE / done["id"] / "hero.png"
        assert kept.read_bytes() == painted and sheet.read_bytes() != painted
        assert (kept.parent.parent / ".gdignore").is_file()  # hidden from Godot's import

        # A free re-cut with pixel art and padding: byte for byte the local export.
        balance = api.get("/credits/balance").json["available"]
        remote = len(tasks(api))
        export = {"frame_count": 6, "output_width": 96, "output_height": 96,
                  "output_formats": ["spritesheet", "spritesheet_json", "godot_pack"]}  # fmt: skip
        selection = {"mode": "range", "start_seconds": 0.2, "duration_seconds": 0.6}
        recut = call(daemon, "POST", f"/api/v1/generations/{done['id']}/recut", {
            "export": export, "selection": selection, "pixel_art": True, "padding": 3,
            "name": "hero_px",
        })  # fmt: skip
        assert recut.status == 202, recut.body
        assert wait_final(daemon, recut.json["id"])["state"] == "done"
        assert api.get("/credits/balance").json["available"] == balance
        assert len(tasks(api)) == remote
        # The picture has transparent pixels: its clip was made on the key colour the
        # companion chose, and the re-cut keys that out again.
        with Image.open(project / "art" / "hero.png") as picture:
            key = far_key_colour(picture)
        spec = export_spec(
            ExportOptions.model_validate(export),
            Selection.model_validate(selection),
            name="hero_px",
            key_color=key,
            pixel_art=True,
            # The art's facts a re-cut as pixel art reads from the source's picture.
            pixel=PixelArt.of_json(pixel_facts(project / "art" / "hero.png", None) or {}),
            spacing=Spacing(padding=3),
            # A Godot pack of a keyed clip: trimmed and held in place unless said otherwise.
            in_place=True,
            trim=True,
        )
        local = export_video(home / "clips" / f"{done['id']}.mp4", tmp_path / "local", spec)
        made = {o.path.name: o.path.read_bytes() for o in local.outputs}
        assert (project / "animations" / "hero_px.png").read_bytes() == made["hero_px.png"]
        # The re-cut is listed with its parent's kept video, so it can be re-cut in turn.
        rows = call(daemon, "GET", f"/api/v1/generations?project={project}").json["data"]
        assert rows[0]["id"] == recut.json["id"] and rows[0]["clip"] == rows[1]["clip"]
        assert rows[0]["clip"]["kept"] and rows[0]["cost_credits"] == 0
        # Imported again elsewhere, a pixel-art re-cut stays pixel art.
        again = call(daemon, "POST", f"/api/v1/generations/{recut.json['id']}/import",
                     {"target_folder": "elsewhere"})  # fmt: skip
        assert again.status == 202, again.body
        assert wait_final(daemon, again.json["id"])["state"] == "done"
        assert (project / "elsewhere" / "hero_px.png").read_bytes() == made["hero_px.png"]
        bad = call(daemon, "POST", f"/api/v1/generations/{done['id']}/recut", {"padding": 99})
        assert bad.status == 400 and "padding" in bad.error["message"]
    finally:
        daemon.stop()


def _generated(speed: float) -> str:
    return (
        '[gd_resource type="SpriteFrames" load_steps=2 format=3]\n\n'
        '[ext_resource type="Texture2D" path="res://animations/hero.png" id="1_sheet"]\n\n'
        '[resource]\nanimations = [{\n"frames": [{\n"duration": 1.0,\n'
        '"texture": ExtResource("1_sheet")\n}],\n"loop": true,\n"name": &"default",\n'
        f'"speed": {speed}\n}}]\n'
    )


def test_edits_survive_every_reanimation_not_only_the_first() -> None:
    """Was: the merged file, unchanged since the companion wrote it, was replaced whole by
    the next animation, and the user's animation and loop went with it."""
    theirs = (
        _generated(8.0)
        .replace('"loop": true', '"loop": false')
        .replace("}]\n", '}, {\n"frames": [],\n"loop": true,\n"name": &"wave",\n"speed": 3.0\n}]\n')
    )
    once = merge(theirs, _generated(6.0))
    animations = once.split("metadata/")[0]
    # Without a record of what was generated, every value of theirs is kept.
    assert '"name": &"wave"' in animations and '"loop": false' in animations
    assert '"speed": 8.0' in animations
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "hero.tres"
        path.write_text(once)
        assert carries_edits(path)
        path.write_text(_generated(6.0))
        assert not carries_edits(path)  # the companion's own: replaced, not merged
    # The merged file records what was generated (speed 6): the user's loop differs from
    # it and stays; the speed they never touched follows the new export.
    assert 'metadata/companion_generated = {"loop": true, "speed": 6.0}' in once
    twice = merge(once.replace('"speed": 8.0', '"speed": 6.0'), _generated(12.0))
    animations = twice.split("metadata/")[0]
    assert '"name": &"wave"' in animations and '"loop": false' in animations
    assert '"speed": 12.0' in animations and '"speed": 6.0' not in animations


def test_a_file_of_the_release_that_named_it_default_takes_the_new_name() -> None:
    """Every generated animation was named "default"; now it is named after what it is.
    A file of that release the user extended: the old "default" was the companion's, so
    the new animation takes its place (with the loop the user set on it), their own
    animation stays, and no "default" is left behind beside the new one."""
    theirs = (
        _generated(8.0)
        .replace('"loop": true', '"loop": false')
        .replace("}]\n", '}, {\n"frames": [],\n"loop": true,\n"name": &"wave",\n"speed": 3.0\n}]\n')
    )
    named = _generated(6.0).replace('&"default"', '&"hero"')
    merged = merge(theirs, named).split("metadata/")[0]
    assert '&"default"' not in merged
    assert merged.count('"name": &"hero"') == 1 and '"name": &"wave"' in merged
    hero = merged[merged.index("animations = [") : merged.index('&"hero"')]
    assert '"loop": false' in hero  # the loop the user set on the old one
    # A user's own animation that happens to share the new name is the one replaced, and
    # the old "default" is then theirs: kept.
    both = theirs.replace('&"wave"', '&"hero"')
    kept = merge(both, named).split("metadata/")[0]
    assert kept.count('"name": &"hero"') == 1 and '"name": &"default"' in kept
