"""A task's outputs are known by what they are, whatever their order, names and kinds
(spec 2.1, 2.4, 2.8, 2.9): a multi-page sheet paired by content, an unknown format kept
aside without failing the job, the kept clip the generated video known by its media, and
a later-stage failure's charged video reused free. Against the latitude face."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from companion.media import probe
from companion.media.demo_art import draw_character
from companion.sandbox.face import LATITUDE, with_changes
from tests.conftest import TEST_KEY, both_faces
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.paid import creates

LATITUDE_ONLY = pytest.mark.parametrize("face", ["latitude"], indirect=True)
ASK = ["--prompt", "walk", "--seconds", "1", "--resolution", "360p", "--name", "hero"]


def _animate(sandbox: Any, home: Path, image: Path, out: Path, *more: str) -> Any:
    return companion(sandbox.base_url, home, "animate", str(image), *ASK, *more, "--out", str(out))


def _summary(run: Any) -> dict[str, Any]:
    assert run.returncode == 0, run.stderr
    said: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return said


def _balance(sandbox: Any) -> int:
    available: int = Api(sandbox.base_url, key=TEST_KEY).get("/credits/balance").json["available"]
    return available


def _picture(tmp_path: Path) -> Path:
    image = tmp_path / "hero.png"
    draw_character(64).save(image)
    return image


@LATITUDE_ONLY
def test_an_unknown_format_is_kept_aside_named_and_the_job_is_done(
    make_sandbox, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox()
    home, out = tmp_path / "home", tmp_path / "out"
    formats = ["--formats", "spritesheet,spritesheet_json", "--frame-count", "4"]
    run = _animate(sandbox, home, _picture(tmp_path), out, *formats, "--width", "64",
                   "--height", "64")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "kept aside: 'thumbnail_webp' ('image/webp')" in run.stdout
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "hero.json",
        "hero.png",
    ]
    shown = companion(sandbox.base_url, home, "jobs", "show", "")
    [aside] = json.loads(shown.stdout)["kept_aside"]
    kept = Path(aside["path"])
    # Under a name of our own (asset id and the media type's suffix), outside the project.
    assert kept == home / "aside" / json.loads(shown.stdout)["id"] / f"{aside['asset']}.webp"
    assert kept.stat().st_size == aside["byte_size"]
    with Image.open(kept) as picture:
        assert picture.format == "WEBP"


@pytest.mark.slow
@LATITUDE_ONLY
def test_a_multi_page_sheet_is_paired_and_numbered_by_its_content(
    make_sandbox, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    # 65 frames of 1024 px: one 8192 px page of 64 frames, and a second page of one.
    sandbox = make_sandbox(task_seconds=0.1)
    home, out = tmp_path / "home", tmp_path / "out"
    ask = ["--formats", "spritesheet,spritesheet_json", "--frame-count", "65"]
    run = _animate(sandbox, home, _picture(tmp_path), out, *ask, "--width", "1024",
                   "--height", "1024")  # fmt: skip
    assert run.returncode == 0, run.stderr
    for page in (0, 1):
        data = json.loads((out / f"hero_p{page}.json").read_text())
        first = min(int(k) for k in data["frames"])
        assert first == (0 if page == 0 else 64), (page, first)
        assert data["meta"]["image"] == f"hero_p{page}.png"
        with Image.open(out / f"hero_p{page}.png") as sheet:
            assert list(sheet.size) == [data["meta"]["size"]["w"], data["meta"]["size"]["h"]]


@pytest.mark.slow
@LATITUDE_ONLY
def test_an_asked_clip_is_the_selection_never_kept_as_the_generation(
    make_sandbox, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(journal=True)
    home, out = tmp_path / "home", tmp_path / "out"
    image = _picture(tmp_path)
    ask = ["--formats", "clip_video,spritesheet", "--frame-count", "4", "--width", "96"]
    ask += ["--height", "96", "--start", "0.5", "--duration", "0.5", "--json"]
    ask += ["--service-export"]  # the one-click path: the service's own export installed
    first = _summary(_animate(sandbox, home, image, out, *ask))
    assert first["spent_now"] > 0
    clip = probe(out / "hero.mp4")
    assert (clip.width, clip.height) == (96, 96)
    assert clip.duration == pytest.approx(0.5, abs=0.1)  # the selection, applied once
    # The service returned no whole video: nothing is kept as its clip, and the same
    # generation asked again pays, saying why, instead of re-cutting a cut clip.
    assert not list((home / "clips").glob("*.mp4"))
    again = _animate(sandbox, home, image, tmp_path / "other", *ask)
    assert "returned no whole video for it" in again.stderr
    assert _summary(again)["spent_now"] > 0 and len(creates(sandbox)) == 2


@pytest.mark.slow
@pytest.mark.parametrize(
    ("unasked_video", "bought"),
    [(True, ["--service-export"]), (False, [])],
    ids=["one-click-returning-its-video", "video-alone"],
)
def test_the_generated_video_is_kept_by_its_media(  # type: ignore[no-untyped-def]
    make_sandbox, tmp_path: Path, unasked_video: bool, bought: list[str]
) -> None:
    """A one-click on a service that also returns its generated video (under a format of
    its own), or the video alone bought (the default): either way the whole generated
    video is kept, and a later selection of it is free."""
    face = with_changes(LATITUDE, unasked_video=unasked_video)
    sandbox = make_sandbox(face=face, journal=True)
    home, out = tmp_path / "home", tmp_path / "out"
    image = _picture(tmp_path)
    ask = ["--formats", "clip_video,spritesheet", "--frame-count", "4", "--width", "96"]
    ask += ["--height", "96", "--start", "0.5", "--duration", "0.5", "--json", *bought]
    first = _summary(_animate(sandbox, home, image, out, *ask))
    assert probe(out / "hero.mp4").duration == pytest.approx(0.5, abs=0.1)  # cut once
    [kept] = list((home / "clips").glob("*.mp4"))
    whole = probe(kept)
    assert whole.duration == pytest.approx(1.0, abs=0.1) and whole.width > 96
    # The same generation, another selection: a free re-cut of the whole video.
    later = ["--start", "0.0", "--duration", "1.0"]
    recut = _summary(_animate(sandbox, home, image, tmp_path / "b", *ask, *later))
    assert recut["spent_now"] == 0 and recut["recut_of"] == first["job"]
    assert probe(tmp_path / "b" / "hero.mp4").duration == pytest.approx(1.0, abs=0.1)
    assert len(creates(sandbox)) == 1


@both_faces
def test_a_failed_export_keeps_its_charged_video_and_the_same_command_is_free(
    make_sandbox, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    sandbox = make_sandbox(journal=True)
    home, out = tmp_path / "home", tmp_path / "out"
    image = _picture(tmp_path)
    ask = ["--formats", "spritesheet,spritesheet_json", "--frame-count", "4"]
    ask += ["--width", "64", "--height", "64", "--prompt", "walk sandbox:export-fail"]
    ask += ["--service-export"]  # the service's export stage is the one that fails
    start = _balance(sandbox)
    failed = _animate(sandbox, home, image, out, *ask)
    assert failed.returncode == 1
    assert "EXPORT_FAILED" in failed.stderr and "paid for and is kept" in failed.stderr
    charged = start - _balance(sandbox)
    assert charged > 0  # the video stage was charged
    again = _summary(_animate(sandbox, home, image, out, *ask, "--json"))
    assert again["spent_now"] == 0 and again["state"] == "done"
    assert _balance(sandbox) == start - charged and len(creates(sandbox)) == 1
    assert (out / "hero.png").is_file() and (out / "hero.json").is_file()
