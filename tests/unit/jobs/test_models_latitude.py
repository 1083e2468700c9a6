"""The model listing read tolerantly, the default model not assumed to key, and limits
the spec does not show left to the service (issue 38, items 7, 8 and 15).

Against both faces of the sandbox: the latitude face lists its models in another
vocabulary, uses a model that cannot key when none is named (the lite one, listed
first) and takes larger pictures and longer videos than the default face, whose own
refusal then reaches the user as one line, nothing spent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from companion.api.schema import ModelsResponse
from companion.media import draw_character
from companion.store import Store
from tests.conftest import TEST_KEY, both_faces
from tests.support.calls import Api
from tests.support.cli import companion
from tests.support.sandbox import listed

QUICK = ["--prompt", "idle", "--frame-count", "4", "--seconds", "1", "--resolution", "360p"]
SHEET = ["--formats", "spritesheet,spritesheet_json"]


def balance(api: Api) -> int:
    return int(api.get("/credits/balance").json["available"])


def error_line(stderr: str) -> str:
    """The one error line of a refused command (progress lines aside), no traceback."""
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, stderr
    return errors[0]


def remote_videos(api: Api) -> list[dict[str, Any]]:
    """The video options of every task the service was sent."""
    found = []
    for path in ("/animations", "/video-generations"):
        found += [t["normalized_input"].get("video") or {} for t in listed(api, path[1:])]
    return found


@both_faces
def test_models_prints_what_it_reads_of_any_listing(
    make_sandbox: Any, face: str, tmp_path: Path
) -> None:
    sandbox = make_sandbox()
    shown = companion(sandbox.base_url, tmp_path / "home", "models")
    assert shown.returncode == 0, shown.stderr
    listing = json.loads(shown.stdout)
    by_id = {m["id"]: m for m in listing["data"]}
    assert set(by_id) == {"sandbox-motion-1", "sandbox-motion-lite"}, listing
    full, lite = by_id["sandbox-motion-1"], by_id["sandbox-motion-lite"]
    assert full["transparency_modes"] == ["standard", "alpha_key"], full
    assert lite["transparency_modes"] == ["standard"], lite
    assert lite["supports_last_frame"] is False and lite["max_reference_images"] == 2, lite
    assert lite["requires_prompt"] is True and lite["durations_seconds"] == [1, 2, 3, 4], lite
    assert full["resolutions"] == ["360p", "480p", "720p", "1080p"], full
    # Said when the shape is not the one known: what was read is shown, the rest is the
    # service's to decide.
    assert ("does not know" in shown.stderr) == (face == "latitude"), shown.stderr
    raw = companion(sandbox.base_url, tmp_path / "home", "models", "--raw")
    assert raw.returncode == 0, raw.stderr
    sent = Api(sandbox.base_url, key=TEST_KEY).get("/models").json
    assert json.loads(raw.stdout) == sent


@pytest.mark.parametrize(
    "listing",
    [
        {"data": [{"model": "m1", "capabilities": {"transparency": ["alpha_key"]}}]},
        {"models": {"m1": {"durations": {"values": ["2s", 4]}, "last_frame": {"supported": 1}}}},
        [{"name": "m1", "features": {"reference_images": {"maximum": 3}}}],
        {"object": "list", "data": [{"id": "m1", "durations_seconds": "any"}, {"title": "x"}]},
        {"unexpected": True},
        {"data": [{"id": "m1", "default": True, "transparency_modes": None}]},
    ],
)
def test_any_listing_parses_and_what_it_cannot_read_is_unknown(listing: Any) -> None:
    read = ModelsResponse.model_validate(listing)
    assert read.shape == "other" or read.data[0].is_default is True
    for model in read.data:
        assert model.id == "m1"
    if read.data:
        model = read.data[0]
        assert model.supports_last_frame in (None, False, True)
        # Unreadable values are unknown, never guessed: "any" is no list of lengths.
        assert model.durations_seconds in ([], [2.0, 4.0]), model
    # What was read survives the cache's round trip, shape included.
    again = ModelsResponse.model_validate(read.model_dump(mode="json"))
    assert again.model_dump() == read.model_dump()


@both_faces
def test_a_transparent_picture_lands_keyed_with_no_model_named(
    make_sandbox: Any, face: str, tmp_path: Path
) -> None:
    """On latitude the model used when none is named cannot key: the companion names a
    listed model that can (the request says what is paid for), and the sheet is keyed."""
    sandbox = make_sandbox()
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    picture = tmp_path / "knight.png"
    draw_character(64).save(picture)  # transparent all around the knight
    before = balance(api)
    made = companion(
        sandbox.base_url, home, "animate", str(picture), *QUICK, *SHEET,
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    with Image.open(tmp_path / "out" / "knight.png") as opened:
        sheet = np.asarray(opened.convert("RGBA"))
    border = np.concatenate([sheet[0], sheet[-1], sheet[:, 0], sheet[:, -1]])
    assert int(border[:, 3].max()) == 0, "the sheet's border is not transparent"
    store = Store(home / "companion.db")
    try:
        (job,) = store.jobs()
        charged = store.charged(job.id)
    finally:
        store.close()
    asked = job.request["video"]
    assert asked["transparency"]["mode"] == "alpha_key", asked
    assert asked["model"] == "sandbox-motion-1", asked  # named: it keys, on both faces
    assert [v.get("model") for v in remote_videos(api)] == ["sandbox-motion-1"]
    assert job.quote is not None and charged > 0 and balance(api) < before


def wide_picture(path: Path, width: int = 4200, height: int = 48) -> Path:
    Image.new("RGB", (width, height), (200, 40, 40)).save(path)
    return path


@both_faces
def test_a_picture_wider_than_4096_is_the_service_s_to_refuse(
    make_sandbox: Any, face: str, tmp_path: Path
) -> None:
    """The spec shows no bound on decoded sides: latitude takes 4200 px, the default
    face refuses it with its own 422, one line naming the field, nothing spent."""
    sandbox = make_sandbox()
    api = Api(sandbox.base_url, key=TEST_KEY)
    picture = wide_picture(tmp_path / "banner.png")
    before = balance(api)
    made = companion(
        sandbox.base_url, tmp_path / "home", "animate", str(picture), *QUICK,
        "--formats", "spritesheet", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    if face == "latitude":
        assert made.returncode == 0, made.stderr
        assert (tmp_path / "out" / "banner.png").exists()
        assert balance(api) < before
        return
    assert made.returncode != 0
    line = error_line(made.stderr)
    assert "4200x48" in line and "4096" in line, line  # the service's own words
    assert "first_frame" in line or "file" in line, line  # the field named
    assert balance(api) == before
    assert remote_videos(api) == []


@both_faces
def test_a_40_second_video_is_the_service_s_to_refuse(
    make_sandbox: Any, face: str, tmp_path: Path
) -> None:
    """The spec shows no longest video: latitude's full model makes 40 s, the default
    face's lists none that long, and its own 400 reaches the user as one line."""
    sandbox = make_sandbox()
    api = Api(sandbox.base_url, key=TEST_KEY)
    home = tmp_path / "home"
    before = balance(api)
    quoted = companion(
        sandbox.base_url, home, "quote", "--seconds", "40", "--model", "sandbox-motion-1"
    )
    if face == "latitude":
        assert quoted.returncode == 0, quoted.stderr
        assert json.loads(quoted.stdout)["credits"] > 0
    else:
        assert quoted.returncode != 0
        line = error_line(quoted.stderr)
        assert "duration_seconds" in line and "for this model" in line, line
    # Through animate, with no model named: the length is the service's to judge (the
    # listing does not say which model it uses), before anything is spent.
    made = companion(
        sandbox.base_url, home, "animate", str(wide_picture(tmp_path / "a.png", 64, 64)),
        "--prompt", "idle", "--seconds", "40", "--formats", "spritesheet",
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert made.returncode != 0
    line = error_line(made.stderr)
    assert "duration_seconds" in line and "nothing was spent" in line, line
    assert balance(api) == before
