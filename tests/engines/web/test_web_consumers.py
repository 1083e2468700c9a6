"""Spritesheets made by `companion export`, played by their real web consumers: Phaser 3
and PixiJS from npm, in headless Chromium, served from loopback. The page builds the
animations the way each library documents and reports what it made of them; every frame's
texture region is copied out of the library's own texture and compared with the frame."""

from __future__ import annotations

import base64
import io
import json
import threading
import zipfile
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from companion.cli.main import main as companion
from tests.support.paths import SUPPORT
from tests.support.real_chromium import chromium_until, require_chromium
from tests.support.web_libs import web_libs

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = SUPPORT / "web" / "consumers.html"
SINGLE_DURATIONS = [100] * 10 + [50]  # 10 fps over 1.05 s: a short final frame
MULTI_COUNT = 12  # 64 px frames, pages of at most 200 px: 9 on the first, 3 on the second


class Report:
    """What the page posts to /done when it has finished: its completion signal."""

    def __init__(self) -> None:
        self.body = b""
        self.done = threading.Event()


class QuietHandler(SimpleHTTPRequestHandler):
    def __init__(self, *args: Any, report: Report, **kwargs: Any) -> None:
        self.report = report
        super().__init__(*args, **kwargs)

    def do_POST(self) -> None:
        if self.path != "/done":
            self.send_error(404)
            return
        self.report.body = self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(204)
        self.end_headers()
        self.report.done.set()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def site(tmp_path: Path, index_video: Path) -> Iterator[tuple[str, Path, Report]]:
    require_chromium()
    libs = web_libs()
    root = tmp_path / "site"
    root.mkdir()
    export = ["export", str(index_video), "--out", str(root), "--width", "64", "--height", "64"]
    formats = "spritesheet,spritesheet_json,frames_zip"
    # Default spacing (padded, extruded) over a range at source speed.
    assert (
        companion(
            [
                *export,
                "--formats",
                formats,
                "--fps",
                "10",
                "--start",
                "0.5",
                "--duration",
                "1.05",
                "--transparent",
                "--name",
                "hero",
            ]
        )
        == 0
    )
    # Pixel art (no spacing) split over two pages.
    assert (
        companion(
            [
                *export,
                "--formats",
                formats,
                "--frame-count",
                str(MULTI_COUNT),
                "--pixel-art",
                "--max-sheet-side",
                "200",
                "--name",
                "big",
            ]
        )
        == 0
    )
    (root / "index.html").write_text(PAGE.read_text())
    for path in libs.values():
        (root / path.name).symlink_to(path)
    report = Report()
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(QuietHandler, directory=str(root), report=report)
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root, report
    finally:
        server.shutdown()
        server.server_close()


def frames_of(archive: Path) -> list[np.ndarray]:
    with zipfile.ZipFile(archive) as source:
        return [
            np.asarray(Image.open(io.BytesIO(source.read(n))).convert("RGBA"))
            for n in sorted(source.namelist())
        ]


def decode(data_url: str) -> np.ndarray:
    payload = base64.b64decode(data_url.split(",", 1)[1])
    return np.asarray(Image.open(io.BytesIO(payload)).convert("RGBA"))


def same_pixels(seen: np.ndarray, frame: np.ndarray) -> bool:
    """Equal up to the canvas's premultiplied-alpha rounding."""
    if seen.shape != frame.shape:
        return False
    alpha = np.abs(seen[..., 3].astype(int) - frame[..., 3].astype(int)).max()
    opaque = frame[..., 3] == 255
    colour = np.abs(seen[..., :3].astype(int) - frame[..., :3].astype(int))[opaque]
    return bool(alpha <= 2 and (colour.size == 0 or colour.max() <= 3))


def check_regions(seen: list[dict[str, Any]], frames: list[np.ndarray], who: str) -> None:
    assert len(seen) == len(frames), who
    for index, (entry, frame) in enumerate(zip(seen, frames, strict=True)):
        assert same_pixels(decode(entry["png"]), frame), f"{who}: frame {index} region"


def test_phaser_and_pixi_play_the_exported_sheets(
    site: tuple[str, Path, Report], tmp_path: Path
) -> None:
    base, root, report = site
    # Real time, no budget: the page posts its results when both libraries are done,
    # however long a busy machine makes the decoding of the 8192 px page.
    chromium_until(tmp_path, f"{base}/index.html?single=hero&multi=big&pages=2", report.done)
    results = json.loads(report.body)
    assert "error" not in results["pixi"], results["pixi"]
    assert "error" not in results["phaser"], results["phaser"]
    hero = frames_of(root / "hero_frames.zip")
    big = frames_of(root / "big_frames.zip")
    assert len(hero) == len(SINGLE_DURATIONS) and len(big) == MULTI_COUNT
    assert sorted(p.name for p in root.glob("big*.png")) == ["big_p0.png", "big_p1.png"]

    # PixiJS: the top-level animations, the related page loaded with the first.
    pixi = results["pixi"]
    assert pixi["hero"]["totalFrames"] == len(hero) and pixi["hero"]["fps"] == 10
    assert pixi["hero"]["durations"] == SINGLE_DURATIONS
    check_regions(pixi["hero"]["frames"], hero, "pixi hero")
    assert pixi["big"]["pages"] == ["big_p0.png", "big_p1.png"]
    assert pixi["big"]["totalFrames"] == MULTI_COUNT
    check_regions(pixi["big"]["frames"], big, "pixi big")

    # Phaser: createFromAseprite makes one animation with every frame, in order, with
    # its duration; the sprite plays it.
    phaser = results["phaser"]
    (anim,) = phaser["single"]
    assert anim["key"] == "hero"
    assert [f["name"] for f in anim["frames"]] == [str(i) for i in range(len(hero))]
    assert [f["duration"] for f in anim["frames"]] == SINGLE_DURATIONS
    assert anim["duration"] == sum(SINGLE_DURATIONS)
    assert anim["frameRate"] == pytest.approx(len(hero) / 1.05)
    check_regions(anim["frames"], hero, "phaser hero")
    assert phaser["playing"] == {"key": "hero", "frames": len(hero)}
    # Two pages: one animation per page, named by page, frames continuing in order.
    assert [a["key"] for a in phaser["multi"]] == ["big_p0", "big_p1"]
    joined = [f for a in phaser["multi"] for f in a["frames"]]
    assert [f["name"] for f in joined] == [str(i) for i in range(MULTI_COUNT)]
    assert [f["texture"] for f in joined] == ["big_p0"] * 9 + ["big_p1"] * 3
    check_regions(joined, big, "phaser big")
    # The TexturePacker JSON-hash reader sees the same frames at the same places.
    doc = json.loads((root / "hero.json").read_text())
    assert phaser["atlas"] == {
        key: {k: entry["frame"][k] for k in ("x", "y", "w", "h")}
        for key, entry in doc["frames"].items()
    }
