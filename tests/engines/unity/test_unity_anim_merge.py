"""Re-animating into a Unity clip the user changed keeps their clip settings, events and
every reference to the sprites and the clip (was: refused before paying). Results are
read with unityparser, a Unity YAML reader that is not ours."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest
import yaml
from unityparser import UnityDocument

from companion.install.errors import NotMergeable
from companion.install.unity.anim_merge import merge_clip, merge_texture_meta
from companion.media import ExportResult, ExportSpec, export_video
from tests.support.daemon import DaemonThread
from tests.support.engine_checks import check_sprite_clip
from tests.support.paths import REPO
from tests.support.plugin_script import ScriptedPlugin
from tests.support.unity import as_unity_saves_it

SAMPLE = REPO / "samples" / "unity"


def _clip(index_video: Path, out: Path, frames: int) -> tuple[str, str]:
    spec = ExportSpec(
        formats=("spritesheet", "spritesheet_json", "unity_meta", "unity_pack"),
        frame_count=frames,
        width=64,
        height=64,
        name="hero",
    )
    result: ExportResult = export_video(index_video, out / "export", spec)
    with tarfile.open(result.paths("unity_pack")[0]) as archive:
        archive.extractall(out / "pack", filter="data")
    found = {(f / "pathname").read_text(): f for f in (out / "pack").iterdir()}
    clip = (found["Assets/Animations/hero/hero.anim"] / "asset").read_text()
    return clip, (found["Assets/Animations/hero/hero.png"] / "asset.meta").read_text()


@pytest.mark.parametrize("layout", ["unity", "companion"])
def test_a_clip_merge_keeps_the_users_settings_and_takes_the_new_keys(
    index_video: Path, tmp_path: Path, layout: str
) -> None:
    old_clip, old_meta = _clip(index_video, tmp_path / "old", 4)
    new_clip, new_meta = _clip(index_video, tmp_path / "new", 6)
    users = as_unity_saves_it(old_clip, layout)
    merged = merge_clip(users, new_clip)
    assert merge_clip(merged, new_clip) == merged  # a resumed install writes the same bytes
    (tmp_path / "hero.anim").write_text(merged)
    clip = UnityDocument.load_yaml(str(tmp_path / "hero.anim")).entry
    assert clip.m_AnimationClipSettings["m_LoopTime"] == "0"
    assert clip.m_Events[0]["functionName"] == "Footstep"
    assert clip.m_FloatCurves[0]["attribute"] == "m_Color.a"
    keys = clip.m_PPtrCurves[0]["curve"]
    assert len(keys) == 6
    mapping = clip.m_ClipBindingConstant["pptrCurveMapping"]
    assert [m["fileID"] for m in mapping] == [k["value"]["fileID"] for k in keys]
    new = UnityDocument.load_yaml(str(_write(tmp_path / "new.anim", new_clip))).entry
    assert clip.m_AnimationClipSettings["m_StopTime"] == (new.m_AnimationClipSettings["m_StopTime"])
    # The user's texture settings stay; the sprite table is the new one.
    users_meta = old_meta.replace("spritePixelsToUnits: 100", "spritePixelsToUnits: 32")
    assert users_meta != old_meta
    text, renumbered = merge_texture_meta(users_meta, new_meta)
    assert renumbered == {}  # the same names have the same ids already
    importer = UnityDocument.load_yaml(str(_write(tmp_path / "hero.png.meta", text))).entry
    assert str(importer["TextureImporter"]["spritePixelsToUnits"]) == "32"
    assert len(importer["TextureImporter"]["spriteSheet"]["sprites"]) == 6


def test_a_file_that_is_no_clip_is_not_merged(index_video: Path, tmp_path: Path) -> None:
    new_clip, _ = _clip(index_video, tmp_path, 4)
    with pytest.raises(NotMergeable):
        merge_clip("%YAML 1.1\n--- !u!1 &1\nGameObject:\n  m_Name: x\n", new_clip)


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _sprite_ids(meta: Path) -> dict[str, int]:
    entry = UnityDocument.load_yaml(str(meta)).entry
    table = entry["TextureImporter"]["spriteSheet"]["nameFileIdTable"]
    return {str(name): int(value) for name, value in table.items()}


def test_reanimating_into_a_changed_clip_keeps_the_users_edits_and_references(
    daemon: DaemonThread, tmp_path: Path
) -> None:
    """Through the daemon and the sandbox into a copy of samples/unity. Unity gave the
    sprites ids of its own (it does when it slices), a prefab refers to one of them and
    to the clip, and the user turned loop time off and added an event."""
    project = tmp_path / "unity"
    shutil.copytree(SAMPLE, project)
    plugin = ScriptedPlugin(daemon.home, "unity", project)
    plugin.refresh()
    body = plugin.body("Assets/Art/slime.png", "bounce", ["unity_pack"], 64, 4, 1)
    plugin.quote(body)
    first = plugin.poll(plugin.animate(body))
    assert first["state"] == "done", first
    folder = project / "Assets" / "Animations"
    anim, meta = folder / "slime.anim", folder / "slime.png.meta"
    clip_guid = UnityDocument.load_yaml(str(anim.with_name("slime.anim.meta"))).entry["guid"]
    texture_guid = UnityDocument.load_yaml(str(meta)).entry["guid"]
    ids = _sprite_ids(meta)
    first_name = next(iter(ids))
    unity_id = 2130000000000000001  # an id Unity chose, not the companion's
    meta.write_text(meta.read_text().replace(str(ids[first_name]), str(unity_id)))
    meta.write_text(meta.read_text().replace("spritePixelsToUnits: 100", "spritePixelsToUnits: 16"))
    anim.write_text(
        as_unity_saves_it(anim.read_text().replace(str(ids[first_name]), str(unity_id)))
    )
    prefab = project / "Assets" / "Slime.prefab"
    reference = f"{{fileID: {unity_id}, guid: {texture_guid}, type: 3}}"
    prefab.write_text(
        "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!212 &1\nSpriteRenderer:\n"
        f"  m_Sprite: {reference}\n--- !u!95 &2\nAnimator:\n"
        f"  m_Controller: {{fileID: 7400000, guid: {clip_guid}, type: 2}}\n"
    )
    again = plugin.body("Assets/Art/slime.png", "bounce", ["unity_pack"], 64, 6, 1)
    quote = plugin._call("POST", "/api/v1/quote", again).json
    assert quote["conflicts"] == [], quote  # was: refused before paying
    done = plugin.poll(plugin.animate({**again, "quote_id": quote["quote_id"]}))
    assert done["state"] == "done", done
    # Every keyframe resolves to a sprite of a texture in the project (unityparser, PyYAML).
    assert check_sprite_clip(project, done["resource"], loop=False).frames == 6
    clip = UnityDocument.load_yaml(str(anim)).entry
    assert clip.m_AnimationClipSettings["m_LoopTime"] == "0"
    assert clip.m_Events[0]["functionName"] == "Footstep"
    keys = clip.m_PPtrCurves[0]["curve"]
    assert keys[0]["value"] == {"fileID": str(unity_id), "guid": texture_guid, "type": "3"}
    assert UnityDocument.load_yaml(str(anim.with_name("slime.anim.meta"))).entry["guid"] == (
        clip_guid
    )
    texture = UnityDocument.load_yaml(str(meta)).entry
    assert texture["guid"] == texture_guid
    assert str(texture["TextureImporter"]["spritePixelsToUnits"]) == "16"
    # The merged metas carry the new job's provenance, not the first one's.
    for carrier in (meta, anim.with_name("slime.anim.meta")):
        importer = next(
            v for k, v in yaml.safe_load(carrier.read_text()).items() if "Importer" in k
        )
        assert json.loads(importer["userData"])["job"] == done["id"], carrier
    now = _sprite_ids(meta)
    assert len(now) == 6 and now[first_name] == unity_id  # the prefab's sprite is still there
    renderer, animator = UnityDocument.load_yaml(str(prefab)).entries
    assert renderer.m_Sprite["guid"] == texture["guid"]
    assert int(renderer.m_Sprite["fileID"]) in now.values()
    assert animator.m_Controller["guid"] == clip_guid
    # Made again with nothing changed in between: the merged settings are not lost.
    third = plugin.body("Assets/Art/slime.png", "bounce", ["unity_pack"], 64, 5, 1)
    plugin.quote(third)
    assert plugin.poll(plugin.animate(third))["state"] == "done"
    clip = UnityDocument.load_yaml(str(anim)).entry
    assert len(clip.m_PPtrCurves[0]["curve"]) == 5
    assert clip.m_AnimationClipSettings["m_LoopTime"] == "0" and clip.m_Events
    assert _sprite_ids(meta)[first_name] == unity_id
    # A free re-cut into the same name keeps them too.
    recut = plugin.recut(done["id"], {"export": {**again["export"], "frame_count": 3}})
    assert plugin.poll(recut["id"])["state"] == "done"
    clip = UnityDocument.load_yaml(str(anim)).entry
    assert len(clip.m_PPtrCurves[0]["curve"]) == 3
    assert clip.m_AnimationClipSettings["m_LoopTime"] == "0" and clip.m_Events
    assert _sprite_ids(meta)[first_name] == unity_id
    record = json.loads(yaml.safe_load(meta.read_text())["TextureImporter"]["userData"])
    assert (record["job"], record["credits"]) == (recut["id"], 0)


def test_a_clip_the_companion_never_wrote_stays_a_conflict(
    daemon: DaemonThread, tmp_path: Path
) -> None:
    project = tmp_path / "unity"
    shutil.copytree(SAMPLE, project)
    folder = project / "Assets" / "Animations"
    folder.mkdir()
    mine = folder / "coin.anim"
    mine.write_text("%YAML 1.1\n--- !u!74 &7400000\nAnimationClip:\n  m_Name: coin\n")
    plugin = ScriptedPlugin(daemon.home, "unity", project)
    plugin.ensure_project()
    body = plugin.body("Assets/Art/coin.png", "spin", ["unity_pack"], 64, 4, 1)
    quote = plugin._call("POST", "/api/v1/quote", body).json
    assert [c["path"] for c in quote["conflicts"]] == [str(mine)]


def test_a_texture_merge_keeps_unitys_own_sprite_ids_in_both_tables(
    index_video: Path, tmp_path: Path
) -> None:
    """Unity chose its own id for a sprite and keeps the older name table too: the merged
    meta gives that sprite the same id in the sheet and both tables, and returns the
    renumbering the clip's keys then follow."""
    _, old_meta = _clip(index_video, tmp_path / "old", 4)
    _, new_meta = _clip(index_video, tmp_path / "new", 6)
    ids = _sprite_ids(_write(tmp_path / "old.meta", old_meta))
    first = next(iter(ids))
    unity_id = "2130000000000000001"
    users = old_meta.replace(str(ids[first]), unity_id)
    older = "".join(f"  - first:\n      213: {i}\n    second: {n}\n" for n, i in ids.items())
    users = users.replace("  internalIDToNameTable: []\n", "  internalIDToNameTable:\n" + older)
    users = users.replace(str(ids[first]), unity_id)
    text, renumbered = merge_texture_meta(users, new_meta)
    assert renumbered == {str(ids[first]): unity_id}
    merged = UnityDocument.load_yaml(str(_write(tmp_path / "hero.png.meta", text))).entry
    importer = merged["TextureImporter"]
    table = {
        str(row["second"]): str(row["first"]["213"]) for row in importer["internalIDToNameTable"]
    }
    assert len(table) == 6 and table[first] == unity_id
    assert str(importer["spriteSheet"]["nameFileIdTable"][first]) == unity_id
    sprite = next(s for s in importer["spriteSheet"]["sprites"] if s["name"] == first)
    assert str(sprite["internalID"]) == unity_id
