"""Issue 19, daemon side: quotes bound to their settings, job errors never null, and a
project's generations listed newest first across daemon restarts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.media.demo_art import draw_character
from companion.store.clips import ClipStore
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import tasks
from tests.support.daemon import DaemonThread, body, call, godot_project, wait_final
from tests.support.real_godot import Godot, real_godot  # noqa: F401  (the fixture)


def test_a_stale_quote_is_refused_and_nothing_is_spent(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(task_seconds=0.3)
    api = Api(sandbox.base_url, key=TEST_KEY)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        quote = call(daemon, "POST", "/api/v1/quote", body(project)).json
        assert quote["credits"] > 0 and quote["quote_id"]
        # The same body quotes the same id; any change (prompt, image bytes) another one.
        assert (
            call(daemon, "POST", "/api/v1/quote", body(project)).json["quote_id"]
            == (quote["quote_id"])
        )
        before = api.get("/credits/balance").json["available"]
        stale = call(
            daemon, "POST", "/api/v1/animate", body(project, "run", quote_id=quote["quote_id"])
        )
        assert stale.status == 409 and stale.error["code"] == "STALE_QUOTE", stale.body
        draw_character(48).resize((64, 64)).save(project / "art" / "hero.png")
        stale = call(daemon, "POST", "/api/v1/animate", body(project, quote_id=quote["quote_id"]))
        assert stale.status == 409 and stale.error["code"] == "STALE_QUOTE"
        assert call(daemon, "GET", "/api/v1/jobs").json["data"] == []
        assert api.get("/credits/balance").json["available"] == before
        fresh = call(daemon, "POST", "/api/v1/quote", body(project)).json["quote_id"]
        assert fresh != quote["quote_id"]
        accepted = call(daemon, "POST", "/api/v1/animate", body(project, quote_id=fresh))
        assert accepted.status == 202, accepted.body
        assert accepted.json["error"] == ""  # never null: the dock printed "<null>"
        cancelled = call(daemon, "POST", f"/api/v1/jobs/{accepted.json['id']}/cancel").json
        assert isinstance(cancelled["error"], str)
    finally:
        daemon.stop()


def test_generations_newest_first_across_a_restart(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(task_seconds=0.2)
    home = tmp_path / "home"
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        ids = []
        for prompt, seed in (("idle", 11), ("walk", 12)):
            sent = body(project, prompt, name=prompt)
            sent["video"]["seed"] = seed
            ids.append(call(daemon, "POST", "/api/v1/animate", sent).json["id"])
            assert wait_final(daemon, ids[-1])["state"] == "done"
    finally:
        daemon.stop()
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        listed = call(daemon, "GET", f"/api/v1/generations?project={project}").json
        assert [g["id"] for g in listed["data"]] == ids[::-1] and listed["next"] is None
        walk = listed["data"][0]
        assert walk["kind"] == "animate" and walk["parent"] is None and walk["error"] == ""
        assert (walk["prompt"], walk["seed"], walk["state"]) == ("walk", 12, "done")
        assert walk["cost_credits"] > 0 and walk["finished_at"]
        assert walk["resource"] == "res://animations/walk.tres"
        assert walk["settings"]["export"]["frame_count"] == 4
        assert walk["preview_gif"] == f"/api/v1/jobs/{walk['id']}/preview.gif"
        # The paid video is kept for free re-cuts, though the project did not ask for it.
        clip = walk["clip"]
        assert clip["kept"] and clip["bytes"] == (home / "clips" / f"{ids[1]}.mp4").stat().st_size
        assert clip["duration_seconds"] > 0 and clip["width"] > 0
        first = call(daemon, "GET", f"/api/v1/generations?project={project}&limit=1").json
        assert [g["id"] for g in first["data"]] == [ids[1]] and first["next"] == ids[1]
        rest = call(
            daemon, "GET", f"/api/v1/generations?project={project}&limit=1&before={ids[1]}"
        ).json
        assert [g["id"] for g in rest["data"]] == [ids[0]] and rest["next"] is None
        other = call(daemon, "GET", f"/api/v1/generations?project={tmp_path}")
        assert other.status == 400 and "project" in other.error["message"]
    finally:
        daemon.stop()


def frames_in(sheet_json: Path) -> int:
    return len(json.loads(sheet_json.read_text())["frames"])


@pytest.mark.slow
def test_generation_actions_recut_free_again_variations(make_sandbox, tmp_path: Path) -> None:
    sandbox = make_sandbox(task_seconds=0.2)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        first = call(daemon, "POST", "/api/v1/animate", body(project)).json["id"]
        assert wait_final(daemon, first)["state"] == "done"
        made = project / "animations"
        assert frames_in(made / "hero.json") == 4
        base = f"/api/v1/generations/{first}"
        balance = api.get("/credits/balance").json["available"]
        remote = len(tasks(api))

        # A re-cut: other frames and size from the kept clip, into the same name.
        recut = call(daemon, "POST", f"{base}/recut", {
            "export": {"fps": 6, "output_width": 96, "output_height": 96,
                       "output_formats": ["spritesheet", "spritesheet_json", "godot_pack"]},
            "selection": {"mode": "range", "start_seconds": 0.0, "duration_seconds": 0.5},
        })  # fmt: skip
        assert recut.status == 202, recut.body
        done = wait_final(daemon, recut.json["id"])
        assert done["state"] == "done", done
        assert frames_in(made / "hero.json") == 3  # 0.5 s at 6 fps
        assert 'path="res://animations/hero.png"' in (made / "hero.tres").read_text()
        assert api.get("/credits/balance").json["available"] == balance
        assert len(tasks(api)) == remote
        listed = call(daemon, "GET", f"/api/v1/generations?project={project}").json["data"]
        assert (listed[0]["kind"], listed[0]["parent"], listed[0]["cost_credits"]) == (
            "recut",
            first,
            0,
        )

        sheet = call(daemon, "POST", f"{base}/contact_sheet", {"times": [0.1, 0.5, 0.9]}).json
        assert [c["index"] for c in sheet["cells"]] == [0, 1, 2]
        png = call(daemon, "GET", sheet["image"])
        assert png.status == 200 and png.body[:8] == b"\x89PNG\r\n\x1a\n"
        assert call(daemon, "GET", f"{base}/reveal").json["path"] == str(made)

        # Again: the quote names a new seed; a stale id or seed is refused, spending nothing.
        quote = call(daemon, "POST", f"{base}/again", {"quote_only": True}).json
        assert quote["credits"] > 0 and quote["settings"]["video"]["seed"] == quote["seed"]
        other_seed = (quote["seed"] + 1) % 2**31
        wrong = call(
            daemon, "POST", f"{base}/again", {"quote_id": quote["quote_id"], "seed": other_seed}
        )
        assert wrong.status == 409 and wrong.error["code"] == "STALE_QUOTE"
        assert api.get("/credits/balance").json["available"] == balance
        again = call(daemon, "POST", f"{base}/again",
                     {"quote_id": quote["quote_id"], "seed": quote["seed"]})  # fmt: skip
        assert again.status == 202, again.body
        assert wait_final(daemon, again.json["id"])["state"] == "done"

        # Variations: the total first, then one job per seed quoted.
        offer = call(daemon, "POST", f"{base}/variations", {"count": 2, "quote_only": True}).json
        assert offer["credits_total"] == 2 * offer["credits_each"] > 0
        assert len(set(offer["seeds"])) == 2
        chosen = {"count": 2, "quote_id": offer["quote_id"], "seeds": offer["seeds"]}
        started = call(daemon, "POST", f"{base}/variations", chosen)
        assert started.status == 202, started.body
        assert sorted(j["name"] for j in started.json["data"]) == ["hero_v1", "hero_v2"]
        for job in started.json["data"]:
            assert wait_final(daemon, job["id"])["state"] == "done"
        listed = call(daemon, "GET", f"/api/v1/generations?project={project}").json["data"]
        kinds = [(g["kind"], g["parent"], g["seed"]) for g in listed[:3]]
        assert sorted(kinds[:2], key=lambda k: k[2]) == [
            ("variation", first, s) for s in sorted(offer["seeds"])
        ]
        assert kinds[2] == ("animate", first, quote["seed"])

        # Removing a generation's files takes only the companion's own, unchanged ones.
        last = listed[2]["id"]  # the one generated again, into hero
        (made / "hero.json").write_text((made / "hero.json").read_text() + " ")
        removed = call(daemon, "POST", f"/api/v1/generations/{last}/remove_files").json
        assert str(made / "hero.png") in removed["removed"] and not (made / "hero.png").exists()
        assert [k["path"] for k in removed["kept"]] == [str(made / "hero.json")]

        # A clip evicted from the store: a re-cut says so, and what to do.
        ClipStore(home / "clips", 0).evict()
        gone = call(daemon, "POST", f"{base}/recut", {"export": {"frame_count": 2}})
        assert gone.status == 410 and gone.error["code"] == "CLIP_GONE"
        assert "no longer kept" in gone.error["message"] and "again" in gone.error["message"]
    finally:
        daemon.stop()


def test_a_file_that_cannot_be_merged_is_a_conflict_known_before_paying(
    make_sandbox, tmp_path: Path
) -> None:
    """Was: quoted, paid, then failed "hero.tres was changed since the companion wrote it"."""
    sandbox = make_sandbox(task_seconds=0.2)
    api = Api(sandbox.base_url, key=TEST_KEY)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        first = call(daemon, "POST", "/api/v1/animate", body(project)).json["id"]
        assert wait_final(daemon, first)["state"] == "done"
        tres = project / "animations" / "hero.tres"
        quote = call(daemon, "POST", "/api/v1/quote", body(project)).json
        assert quote["conflicts"] == [] and str(tres) in quote["writes"]
        assert (quote["name"], quote["target_dir"]) == ("hero", str(tres.parent))
        # The user made it another kind of resource: not a SpriteFrames to merge into.
        tres.write_text('[gd_resource type="Animation" format=3]\n\n[resource]\nlength = 2.0\n')
        quote = call(daemon, "POST", "/api/v1/quote", body(project)).json
        assert quote["conflicts"] == [
            {"path": str(tres), "reason": f"{tres} was changed since the companion wrote it"}
        ]
        balance = api.get("/credits/balance").json["available"]
        refused = call(daemon, "POST", "/api/v1/animate", body(project, quote_id=quote["quote_id"]))
        assert refused.status == 409 and refused.error["code"] == "CONFLICT"
        assert (
            "hero.tres" in refused.error["message"] and "another name" in refused.error["message"]
        )
        assert api.get("/credits/balance").json["available"] == balance
        assert len(call(daemon, "GET", "/api/v1/jobs").json["data"]) == 1
        elsewhere = call(daemon, "POST", "/api/v1/quote", body(project, name="hero2")).json
        assert elsewhere["conflicts"] == []
    finally:
        daemon.stop()


GODOT_READER = """extends SceneTree
func _init():
    var frames: SpriteFrames = load(OS.get_cmdline_user_args()[1])
    var out = {}
    for name in frames.get_animation_names():
        var count = frames.get_frame_count(name)
        out[name] = {"count": count, "speed": frames.get_animation_speed(name),
            "loop": frames.get_animation_loop(name),
            "textures": count > 0 and frames.get_frame_texture(name, 0) != null}
    var file = FileAccess.open(OS.get_cmdline_user_args()[0], FileAccess.WRITE)
    file.store_string(JSON.stringify(out))
    quit()
"""


@pytest.mark.slow
@pytest.mark.godot
def test_reanimating_keeps_the_users_spriteframes_edits(
    make_sandbox,
    tmp_path: Path,
    real_godot: Godot,  # noqa: F811
) -> None:
    """Was: quoted, paid 9 credits, then failed "hero.tres was changed since the companion
    wrote it". Now the user's own animation and the loop and speed they set are kept, and
    Godot loads the merged file."""
    sandbox = make_sandbox(task_seconds=0.2)
    daemon = DaemonThread(tmp_path / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp_path)
        first = call(daemon, "POST", "/api/v1/animate", body(project)).json["id"]
        assert wait_final(daemon, first)["state"] == "done"
        tres = project / "animations" / "hero.tres"
        text = tres.read_text()
        # As the user would in the editor: slower, not looping, and an animation of theirs
        # that uses a picture of their own.
        text = text.replace('"loop": true', '"loop": false').replace('"speed": 4.0', '"speed": 3.0')
        assert '"speed": 3.0' in text
        text = text.replace(
            "[resource]",
            '[ext_resource type="Texture2D" path="res://art/hero.png" id="9_mine"]\n\n[resource]',
        )
        text = text.replace(
            "}]\n",
            '}, {\n"frames": [{\n"duration": 1.0,\n"texture": ExtResource("9_mine")\n}],\n'
            '"loop": true,\n"name": &"wave",\n"speed": 7.0\n}]\n',
        )
        tres.write_text(text)
        sent = body(project)
        sent["export"]["frame_count"] = 6
        quote = call(daemon, "POST", "/api/v1/quote", sent).json
        assert quote["conflicts"] == []
        again = call(daemon, "POST", "/api/v1/animate", {**sent, "quote_id": quote["quote_id"]})
        assert again.status == 202, again.body
        done = wait_final(daemon, again.json["id"])
        assert done["state"] == "done", done
    finally:
        daemon.stop()
    (project / "read.gd").write_text(GODOT_READER)
    godot_home = tmp_path / "godot-home"
    imported = real_godot.run(godot_home, "--headless", "--import", "--path", str(project))
    assert imported.returncode == 0, imported.stderr[-2000:]
    result = tmp_path / "read.json"
    ran = real_godot.run(
        godot_home, "--headless", "--path", str(project), "-s", "res://read.gd", "--",
        str(result), "res://animations/hero.tres",
    )  # fmt: skip
    assert result.is_file(), ran.stdout[-2000:] + ran.stderr[-2000:]
    found = json.loads(result.read_text())
    assert "default" not in found
    assert found["hero"] == {"count": 6, "speed": 3.0, "loop": False, "textures": True}
    assert found["wave"] == {"count": 1, "speed": 7.0, "loop": True, "textures": True}
