"""Provenance: a paid animation into a Godot and a Unity project carries its record in
each engine's own metadata, and `companion provenance PROJECT` lists exactly the files it
generated (job, model, prompt, seed, date, credits), leaving out those deleted or
replaced since. The record in a SpriteFrames is read back by a real Godot."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from companion.jobs import service_name
from companion.sandbox import SandboxThread
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.daemon import DaemonThread, call, wait_final
from tests.support.drops import DEFAULTS, EXPORT, png_bytes
from tests.support.paid import creates
from tests.support.paths import SUPPORT
from tests.support.real_godot import Godot, real_godot  # noqa: F401  (the fixture)

MODEL = "sandbox-motion-lite"
# Quotes, an apostrophe and a non-ASCII dash: each engine's escaping is read back.
GODOT_PROMPT = 'idle "breathing" \u2014 calm'
UNITY_PROMPT = 'a "sword" slash, then the hero\'s rest'
PROVENANCE_GD = SUPPORT / "godot" / "provenance.gd"


def godot_game(root: Path) -> Path:
    root.mkdir()
    (root / "project.godot").write_text(
        'config_version=5\n\n[application]\n\nconfig/name="game"\n\n'
        "[rendering]\n\ntextures/lossless_compression/force_png=true\n"
    )
    (root / "hero.png").write_bytes(png_bytes(3))
    return root


def unity_game(root: Path) -> Path:
    (root / "Assets").mkdir(parents=True)
    (root / "ProjectSettings").mkdir()
    (root / "Assets" / "hero.png").write_bytes(png_bytes(4))
    return root


def paid_animate(
    daemon: DaemonThread, project: Path, engine: str, image: str, pack: str, prompt: str
) -> dict[str, Any]:
    assert call(daemon, "POST", "/api/v1/projects", {"root": str(project), "engine": engine})
    body: dict[str, Any] = {"project_root": str(project), "image_path": image}
    body.update(DEFAULTS, name="hero", prompt=prompt)
    body["video"] = {**DEFAULTS["video"], "model": MODEL, "seed": 7}
    body["export"] = {**EXPORT, "output_formats": [*EXPORT["output_formats"], pack]}
    made = call(daemon, "POST", "/api/v1/animate", body)
    assert made.status == 202, made.body
    job = wait_final(daemon, made.json["id"])
    assert job["state"] == "done", job
    return job


def generated(project: Path, before: set[Path]) -> set[str]:
    """The files the job put in the project, found on disk (not from our records):
    everything new but the metas that carry the records."""
    return {
        p.relative_to(project).as_posix()
        for p in project.rglob("*")
        if p.is_file() and p not in before and p.suffix != ".meta"
    }


def listing(sandbox: SandboxThread, home: Path, project: Path, shape: str) -> str:
    ran = companion(sandbox.base_url, home, "provenance", str(project), shape)
    assert ran.returncode == 0, ran.stderr
    assert TEST_KEY not in ran.stdout and "signature" not in ran.stdout
    return ran.stdout


@pytest.fixture
def paid(make_sandbox: Any, tmp_path: Path) -> dict[str, Any]:
    """One paid animation into a Godot project and one into a Unity project."""
    sandbox: SandboxThread = make_sandbox(task_seconds=0.3, journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    home.mkdir()
    godot = godot_game(tmp_path / "godot")
    unity = unity_game(tmp_path / "unity")
    before = {p for root in (godot, unity) for p in root.rglob("*")}
    start = api.get("/credits/balance").json["available"]
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        godot_job = paid_animate(daemon, godot, "godot", "hero.png", "godot_pack", GODOT_PROMPT)
        middle = api.get("/credits/balance").json["available"]
        unity_job = paid_animate(
            daemon, unity, "unity", "Assets/hero.png", "unity_pack", UNITY_PROMPT
        )
        routed = {
            engine: call(daemon, "GET", f"/api/v1/provenance?project={root}")
            for engine, root in (("godot", godot), ("unity", unity), ("elsewhere", tmp_path))
        }
    finally:
        daemon.stop()
    end = api.get("/credits/balance").json["available"]
    assert len(creates(sandbox)) == 2
    return {
        "sandbox": sandbox,
        "home": home,
        "routed": routed,
        "godot": (godot, godot_job, start - middle, generated(godot, before)),
        "unity": (unity, unity_job, middle - end, generated(unity, before)),
    }


@pytest.mark.parametrize("engine", ["godot", "unity"])
def test_listing_is_exactly_the_generated_files(paid: dict[str, Any], engine: str) -> None:
    project, job, spent, files = paid[engine]
    prompt = GODOT_PROMPT if engine == "godot" else UNITY_PROMPT
    assert spent > 0 and files, (spent, files)
    rows = json.loads(listing(paid["sandbox"], paid["home"], project, "--json"))["data"]
    assert {row["path"] for row in rows} == files
    for row in rows:
        assert row["job"] == job["id"] and row["model"] == MODEL and row["prompt"] == prompt
        assert row["seed"] == 7 and row["credits"] == spent and row["date"]
        assert row["service"].startswith("http://127.0.0.1:") and "?" not in row["service"]
        assert row["source"] == "hero.png" and len(row["source_sha256"]) == 64
        assert len(row["generation"]) == 64
    # The daemon's route says the same.
    routed = paid["routed"][engine]
    assert routed.status == 200 and routed.json["data"] == rows, routed.body
    # Each file carries the record in its engine's metadata: Unity metas' userData,
    # Godot text resources' metadata.
    record = {k: v for k, v in rows[0].items() if k != "path"}
    if engine == "unity":
        for path in files:
            meta = yaml.safe_load((project / f"{path}.meta").read_text())
            importer = next(v for k, v in meta.items() if k.endswith("Importer"))
            assert json.loads(importer["userData"]) == record, path
    else:
        (tres,) = [p for p in files if p.endswith(".tres")]
        text = (project / tres).read_text()
        line = next(x for x in text.splitlines() if x.startswith("metadata/companion_provenance"))
        assert json.loads(line.split("=", 1)[1]) == record


def test_deleted_and_replaced_files_are_not_listed(paid: dict[str, Any]) -> None:
    project, job, _, files = paid["unity"]
    deleted, replaced, *kept = sorted(files)
    (project / deleted).unlink()
    (project / replaced).write_bytes(b"the user's own file now")
    rows = json.loads(listing(paid["sandbox"], paid["home"], project, "--json"))["data"]
    assert sorted(row["path"] for row in rows) == kept
    # The same list as CSV, read back with the csv module.
    text = listing(paid["sandbox"], paid["home"], project, "--csv")
    table = list(csv.DictReader(io.StringIO(text)))
    assert [r["path"] for r in table] == [r["path"] for r in rows]
    for read, row in zip(table, rows, strict=True):
        assert read["prompt"] == row["prompt"] and read["job"] == job["id"]
        assert read["model"] == MODEL and int(read["seed"]) == 7
        assert int(read["credits"]) == row["credits"]
    # The other project is its own: nothing of it here, all of it there.
    godot, _, _, godot_files = paid["godot"]
    rows = json.loads(listing(paid["sandbox"], paid["home"], godot, "--json"))["data"]
    assert {row["path"] for row in rows} == godot_files


def test_a_free_recut_says_what_made_its_clip(make_sandbox: Any, tmp_path: Path) -> None:
    sandbox: SandboxThread = make_sandbox(task_seconds=0.3, journal=True)
    home = tmp_path / "home"
    home.mkdir()
    project = godot_game(tmp_path / "godot")
    daemon = DaemonThread(home, sandbox.base_url, TEST_KEY).start()
    try:
        paid = paid_animate(daemon, project, "godot", "hero.png", "godot_pack", "idle breathing")
        cut = call(daemon, "POST", f"/api/v1/generations/{paid['id']}/recut", {
            "name": "hero_small",
            "export": {**EXPORT, "output_formats": ["spritesheet", "godot_pack"]},
        })  # fmt: skip
        assert cut.status == 202, cut.body
        assert wait_final(daemon, cut.json["id"])["state"] == "done"
    finally:
        daemon.stop()
    assert len(creates(sandbox)) == 1  # the re-cut paid nothing
    rows = json.loads(listing(sandbox, home, project, "--json"))["data"]
    by_path = {row["path"]: row for row in rows}
    made, recut = by_path["animations/hero.tres"], by_path["animations/hero_small.tres"]
    assert made["job"] == paid["id"] and made["credits"] > 0
    assert recut["job"] == cut.json["id"] and recut["credits"] == 0
    for same in ("service", "model", "prompt", "seed", "date", "generation", "source_sha256"):
        assert recut[same] == made[same], same


def test_the_route_names_a_project_not_registered(paid: dict[str, Any]) -> None:
    refused = paid["routed"]["elsewhere"]
    assert refused.status == 404 and refused.error["code"] == "NOT_FOUND", refused.body
    assert "?project=ROOT" in refused.error["message"]


def test_the_service_is_named_without_what_may_be_secret() -> None:
    named = service_name("https://me:secret@api.example.com:8443/v1/?key=abc#top")
    assert named == "https://api.example.com:8443/v1"


def test_a_wrong_project_path_is_named(make_sandbox: Any, tmp_path: Path) -> None:
    sandbox = make_sandbox()
    missing = companion(sandbox.base_url, tmp_path, "provenance", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "PROJECT" in missing.stderr, missing.stderr
    assert "no such folder" in missing.stderr
    (tmp_path / "file.txt").write_text("x")
    a_file = companion(sandbox.base_url, tmp_path, "provenance", str(tmp_path / "file.txt"))
    assert a_file.returncode == 2 and "not a folder" in a_file.stderr, a_file.stderr
    empty = companion(sandbox.base_url, tmp_path, "provenance", str(tmp_path))
    assert empty.returncode == 0 and "no generated files" in empty.stdout


@pytest.mark.godot
@pytest.mark.slow
def test_a_real_godot_reads_the_record_back(
    paid: dict[str, Any],
    real_godot: Godot,  # noqa: F811
    tmp_path: Path,
) -> None:
    project, job, _, files = paid["godot"]
    (tres,) = [p for p in files if p.endswith(".tres")]
    rows = json.loads(listing(paid["sandbox"], paid["home"], project, "--json"))["data"]
    shutil.copy(PROVENANCE_GD, project / "provenance.gd")
    godot_home = tmp_path / "godot-home"
    godot_home.mkdir()
    imported = real_godot.run(godot_home, "--headless", "--import", "--path", str(project))
    assert imported.returncode == 0, imported.stderr[-2000:]
    result = tmp_path / "read.json"
    ran = real_godot.run(
        godot_home, "--headless", "--path", str(project), "-s", "res://provenance.gd", "--",
        str(result), f"res://{tres}",
    )  # fmt: skip
    assert ran.returncode == 0 and result.is_file(), ran.stdout[-2000:] + ran.stderr[-2000:]
    read = json.loads(result.read_text())[f"res://{tres}"]
    assert read["class"] == "SpriteFrames" and read["animations"], read
    # Godot's import left every generated file as it was: the list is the same.
    assert json.loads(listing(paid["sandbox"], paid["home"], project, "--json"))["data"] == rows
    expected = {k: v for k, v in rows[0].items() if k != "path"}
    assert read["provenance"] == expected and read["provenance"]["job"] == job["id"]
