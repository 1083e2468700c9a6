"""Pictures named in any language dropped at once into a watched Godot inbox: every one
ends done, once, under a name its user recognises; nothing paid fails for its name."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.media import clean_name, is_clean_name
from companion.sandbox import SandboxThread
from tests.support.daemon import call
from tests.support.drops import (
    DEFAULTS,
    EXPORT,
    outputs_by_job,
    png_bytes,
    start_daemon,
    wait_until,
)

LONG = "dragon" * 30  # 180 letters
COMPOSED = "h\u00e9ro"
DECOMPOSED = unicodedata.normalize("NFD", COMPOSED)
STEMS = ["勇者", "飛龍の息", "مقاتل", "Ёжик", "🐉dragon", COMPOSED, DECOMPOSED, "CON", "hero?"]
STEMS.append(LONG)


@pytest.mark.parametrize(
    "given,kept",
    [
        ("勇者", "勇者"),
        ("🐉dragon", "🐉dragon"),
        (DECOMPOSED, COMPOSED),
        ("CON", "CON_"),
        ("lpt1.old", "lpt1_.old"),
        ("hero?", "hero"),
        ("a/b\\c", "a_b_c"),
        ("walk:cycle*2", "walk_cycle_2"),
        ("trailing. . ", "trailing"),
        ("tab\there\x00", "tab_here"),
        ("#first", "first"),
        ("..", "animation"),
        ("", "animation"),
    ],
)
def test_names_keep_every_script_and_lose_only_what_is_refused(given: str, kept: str) -> None:
    assert clean_name(given) == kept
    assert is_clean_name(kept)


def test_long_names_fit_every_engine() -> None:
    assert clean_name(LONG) == LONG[:64]
    wide = clean_name("飛" * 100)
    assert len(wide) <= 64 and len(wide.encode()) <= 160 and wide == "飛" * 53


@pytest.mark.slow
def test_drops_named_in_any_language_all_end_done_once(
    make_sandbox: Callable[..., SandboxThread], tmp_path: Path
) -> None:
    running = start_daemon(make_sandbox(task_seconds=0.2), tmp_path / "home")
    try:
        project = tmp_path / "game"
        project.mkdir()
        (project / "project.godot").write_text("config_version=5\n")
        defaults = {**DEFAULTS, "export": {**EXPORT, "output_formats": [
            "spritesheet", "spritesheet_json", "godot_pack"]}}  # fmt: skip
        reply = call(
            running,
            "POST",
            "/api/v1/projects",
            {"root": str(project), "engine": "godot", "inbox": "inbox", "defaults": defaults},
        )
        assert reply.status == 201, reply.body
        inbox = project / "inbox"
        for seed, stem in enumerate(STEMS):
            (inbox / f"{stem}.png").write_bytes(png_bytes(seed))

        def finished() -> bool:
            jobs = call(running, "GET", "/api/v1/jobs").json["data"]
            return len(jobs) == len(STEMS) and all(j["state"] in ("done", "failed") for j in jobs)

        wait_until(finished, running, seconds=120)
        jobs = call(running, "GET", "/api/v1/jobs").json["data"]
        assert [j["error"] for j in jobs if j["state"] != "done"] == []
        assert sorted(j["name"] for j in jobs) == sorted(
            ["勇者", "飛龍の息", "مقاتل", "Ёжик", "🐉dragon", COMPOSED, f"{COMPOSED}_2",
             "CON_", "hero", LONG[:64]]
        )  # fmt: skip
        shared = {path: ids for path, ids in outputs_by_job(jobs).items() if len(ids) > 1}
        assert shared == {}
        for job in jobs:  # each name's own SpriteFrames, holding its own name
            tres = [
                o["installed_path"]
                for o in job["outputs"] or []
                if str(o.get("installed_path", "")).endswith(".tres")
            ]
            assert [Path(t).stem for t in tres] == [job["name"]], job
        assert not list((inbox / "failed").glob("*.png"))
    finally:
        running.stop()


def test_the_api_takes_a_name_in_any_script_and_says_how_to_fix_a_refused_one(
    daemon: Any, tmp_path: Path
) -> None:
    project = tmp_path / "game"
    project.mkdir()
    (project / "hero.png").write_bytes(png_bytes(3))
    assert call(daemon, "POST", "/api/v1/projects", {"root": str(project)}).status == 201
    body = {"project_root": str(project), "image_path": "hero.png", **DEFAULTS}
    refused = call(daemon, "POST", "/api/v1/quote", {**body, "name": "hero?"})
    assert refused.status == 400
    assert "name" in refused.json["error"]["message"]
    assert "use 'hero'" in refused.json["error"]["message"]
    taken = call(daemon, "POST", "/api/v1/animate", {**body, "name": "勇者"})
    assert taken.status == 202, taken.body
    assert taken.json["name"] == "勇者"
