"""Pay once per generation across a team: two members on one account and one real
PostgreSQL, with the folder of clips the team config names (team.clips). The first
member's paid generation answers the second's identical remote part: the second spends
nothing (no create, the balance still), copies the clip once, and a second request of
theirs re-cuts their own copy (no second copy, nothing fetched from the service)."""

from __future__ import annotations

# ruff: noqa: F811  (the cluster fixtures are imported by name)
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from companion.store import Store
from tests.conftest import TEST_KEY
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.paid import creates
from tests.support.real_postgres import real_postgres, team_db  # noqa: F401

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

ASK = ["--prompt", "walk", "--seconds", "1", "--resolution", "360p", "--width", "64"]
ASK += ["--height", "64", "--json"]


def _member(tmp_path: Path, name: str, dsn: str, shared: Path) -> Path:
    home = tmp_path / name
    home.mkdir()
    team = {"database": dsn, "member": f"{name}@desk", "clips": str(shared)}
    (home / "config.yaml").write_text(yaml.safe_dump({"team": team}))
    (home / "config.yaml").chmod(0o600)
    return home


def _summary(run: Any) -> dict[str, Any]:
    assert run.returncode == 0, run.stderr
    summary: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return summary


def _asset_reads(sandbox: SandboxThread) -> int:
    entries = sandbox.call(lambda: list(sandbox.service.journal.entries))
    return len([e for e in entries if e.method == "GET" and "/assets/" in e.path])


def test_a_teammates_identical_generation_spends_nothing(
    team_db: str, tmp_path: Path, make_sandbox: Callable[..., SandboxThread]
) -> None:
    sandbox = make_sandbox(journal=True)
    api = Api(sandbox.base_url, key=TEST_KEY)
    shared = tmp_path / "team-clips"
    ana, ben = (_member(tmp_path, n, team_db, shared) for n in ("ana", "ben"))
    draw_character(64).save(tmp_path / "hero.png")
    image = str(tmp_path / "hero.png")

    first = ["--formats", "gif", "--frame-count", "4", "--out", str(tmp_path / "ana-out")]
    made = _summary(companion(sandbox.base_url, ana, "animate", image, *ASK, *first))
    assert made["spent_now"] > 0 and len(creates(sandbox)) == 1
    assert len(list(shared.glob("*.mp4"))) == 1  # published once, by its generation
    paid, reads = api.get("/credits/balance").json["available"], _asset_reads(sandbox)
    assert reads > 0  # ana fetched her outputs and the clip from the service

    theirs = companion(sandbox.base_url, ben, "animate", image, *ASK, "--formats",
                       "spritesheet,spritesheet_json", "--frame-count", "6",
                       "--out", str(tmp_path / "ben-out"))  # fmt: skip
    recut = _summary(theirs)
    assert recut["spent_now"] == 0 and recut["recut_of"], recut
    assert "a teammate's job" in theirs.stderr
    assert len(json.loads((tmp_path / "ben-out" / "hero.json").read_text())["frames"]) == 6
    gif = ["--formats", "gif", "--frame-count", "8", "--out", str(tmp_path / "ben-gif")]
    again = _summary(companion(sandbox.base_url, ben, "animate", image, *ASK, *gif))
    assert again["spent_now"] == 0 and again["recut_of"] == recut["recut_of"]
    assert (tmp_path / "ben-gif" / "hero.gif").is_file()

    # Measured: nothing created, nothing spent, nothing fetched from the service by ben;
    # the clip copied into ben's clip store once (one record of ana's generation there).
    assert len(creates(sandbox)) == 1 and api.get("/credits/balance").json["available"] == paid
    assert _asset_reads(sandbox) == reads
    store = Store(ben / "companion.db")
    try:
        adopted = [j for j in store.jobs() if j.kind == "animation"]
        assert len(adopted) == 1 and adopted[0].request["team_job"] == made["job"]
        assert store.charged() == 0
    finally:
        store.close()
    assert [p.stem for p in (ben / "clips").glob("*.mp4")] == [adopted[0].id]
