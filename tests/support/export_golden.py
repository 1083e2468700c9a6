"""Digests of every export output for fixed inputs, so a faster pipeline can be held to
writing exactly what the previous one wrote.

PNGs (the sheet pages, the frames in every archive) are held to their decoded pixels,
exactly, and to their size: each file at most PNG_GROWTH times the size recorded with the
reference writers. Their bytes are free (another filter choice or deflate may pack the
same pixels). Every other output is held as its digest says.

    python -m tests.support.export_golden write   # record (run on the reference code)
    python -m tests.support.export_golden check   # compare, print the formats that differ
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import av
import numpy as np
from PIL import Image

from companion.media import FORMATS, ExportResult, ExportSpec, export_video
from tests.support.media import KEY, decode_rgba
from tests.support.paths import REPO

GOLDEN = Path(__file__).parent / "data" / "export_golden.json"
# The byte size of every PNG, top-level or inside an archive, as the reference wrote it.
PNG_SIZES = Path(__file__).parent / "data" / "export_png_sizes.json"
PNG_GROWTH = 1.05
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# libvpx with row threading is not bit-reproducible run to run, even on the same code:
# its entry records the frame count and times, and its pixels are held to the frames the
# PNG sequence carries (which are digested) within this mean difference per channel.
# x264's clip is held to the source video, scaled to its size, within the same tolerance:
# its bytes follow x264's version and settings (it was frame-threaded before, and not
# reproducible under load), while what it must show is the source.
LOSSY = {"webm_alpha", "clip_video"}
LOSSY_TOLERANCE = 3.0
# A GIF (unless pixel art, which keeps a palette per frame and its recorded digest) keeps
# a palette across frames while it serves them, so its bytes are not those of the former
# palette-per-frame writer. It is held to the exact frames instead: the same transparent
# pixels, the same times, and colours within this mean difference per channel on the
# shown pixels: the worst frame of the palette-per-frame GIFs of these cases (0.86 and
# 0.93) is the bar.
GIF_TOLERANCE = 1.0

# Each case exercises a different path through the shaper and writers.
CASES: dict[str, ExportSpec] = {
    # Keyed, scaled by half, every format.
    "keyed_all": ExportSpec(
        formats=FORMATS, frame_count=12, width=160, height=120, key_color=KEY, name="hero"
    ),
    # Letterboxed, pixel art (point scaling, undithered GIF), spacing on the sheet.
    "pixel_art_letterbox": ExportSpec(
        formats=("gif", "frames_zip", "spritesheet", "spritesheet_json", "godot_pack"),
        frame_count=10,
        width=100,
        height=100,
        key_color=KEY,
        pixel_art=True,
        padding=2,
        extrude=1,
        name="pix",
    ),
    # Unkeyed, upscaled (bicubic), a short last frame, several sheet pages.
    "unkeyed_upscaled_pages": ExportSpec(
        formats=("gif", "frames_zip", "spritesheet", "spritesheet_json", "webm_alpha"),
        frame_count=None,
        fps=10,
        duration=1.25,
        width=400,
        height=300,
        max_sheet_side=1024,
        name="big",
    ),
}


Sizes = dict[str, dict[str, int]]


def digests(work: Path) -> dict[str, dict[str, str]]:
    return record(work)[0]


def record(work: Path) -> tuple[dict[str, dict[str, str]], Sizes]:
    """Every output's digest and every PNG's size, per case."""
    source = _index_video(work / "index.mp4")
    found: dict[str, dict[str, str]] = {}
    sizes: Sizes = {}
    for case, spec in CASES.items():
        result = export_video(source, work / case, spec)
        sizes[case] = {
            key: size for o in result.outputs for key, size in png_sizes(o.format, o.path).items()
        }
        found[case] = {
            f"{o.format}:{o.path.name}": _clip_digest(o.path, source)
            if o.format == "clip_video"
            else _lossy_digest(o.path, result)
            if o.format in LOSSY
            else _gif_digest(o.path, result)
            if o.format == "gif" and not spec.pixel_art
            else _tar_digest(o.path)
            if o.format == "unity_pack"
            else _prores_digest(o.path)
            if o.format == "prores_4444"
            else _content_digest(o.path.name, o.path.read_bytes())
            for o in result.outputs
        }
    return found, sizes


def png_sizes(fmt: str, path: Path) -> dict[str, int]:
    """The size of each PNG an output is or holds, keyed "format:file[/member]"."""
    key = f"{fmt}:{path.name}"
    if path.suffix == ".png":
        return {key: path.stat().st_size}
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            pngs = [i for i in archive.infolist() if i.filename.endswith(".png")]
            return {f"{key}/{i.filename}": i.file_size for i in pngs}
    if path.suffix == ".unitypackage":
        with tarfile.open(path) as archive:
            return {f"{key}/{m.name}": m.size for m in archive.getmembers() if _tar_png(archive, m)}
    return {}


def _tar_png(archive: tarfile.TarFile, member: tarfile.TarInfo) -> bool:
    """A Unity package stores each asset as <guid>/asset, named by <guid>/pathname."""
    if not member.name.endswith("/asset"):
        return False
    content = archive.extractfile(member)
    return content is not None and content.read(8) == PNG_SIGNATURE


def _index_video(path: Path) -> Path:
    """The source, made in a process of its own. In a process that has already decoded
    H.264 through PyAV (as the clip check below does, and other tests before this one),
    x264 encodes the same frames slightly differently, and every output would follow."""
    made = (
        "import sys; from pathlib import Path; "
        "from tests.support.media import write_index_video; write_index_video(Path(sys.argv[1]))"
    )
    subprocess.run(
        [sys.executable, "-c", made, str(path)],
        cwd=REPO,
        check=True,
        timeout=120,
    )
    return path


def _content_digest(name: str, data: bytes) -> str:
    """What a file holds, not how a library compressed it: PNG and GIF are digested as
    their decoded pixels (and a GIF's frame times and loop), zips member by member, any
    other file as its bytes. A new Pillow or zlib may pack the same pixels differently
    (Pillow 13 did), and that is not a change of output."""
    suffix = name.rsplit(".", 1)[-1].lower()
    if suffix == "zip":
        digest = hashlib.sha256()
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            digest.update((archive.comment or b"") + b"\0")
            for member in sorted(archive.namelist()):
                inner = _content_digest(member, archive.read(member))
                digest.update(member.encode() + b"\0" + inner.encode())
        return digest.hexdigest()
    # A Unity package names its PNG pages <guid>/asset: they are known by their signature.
    if suffix in ("png", "gif") or data.startswith(PNG_SIGNATURE):
        return _pixels_digest(data)
    return hashlib.sha256(data).hexdigest()


def _pixels_digest(data: bytes) -> str:
    digest = hashlib.sha256()
    with Image.open(io.BytesIO(data)) as image:
        digest.update(f"{image.format} {image.size} {image.info.get('loop')}".encode())
        for index in range(getattr(image, "n_frames", 1)):
            image.seek(index)
            digest.update(f"{image.info.get('duration')}".encode())
            digest.update(image.convert("RGBA").tobytes())
    return digest.hexdigest()


def _prores_digest(path: Path) -> str:
    """Its frames as decoded, at 16 bits a channel, and their times: the encoder may
    write the same picture with other header fields (a fixed quantiser is signalled
    differently from a searched one that lands on the same step)."""
    digest = hashlib.sha256()
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            digest.update(f"{frame.pts} {frame.width}x{frame.height}".encode())
            digest.update(frame.to_ndarray(format="rgba64le").tobytes())
    return digest.hexdigest()


def _tar_digest(path: Path) -> str:
    """The package's members, names and contents; its gzip and tar headers carry times."""
    digest = hashlib.sha256()
    with tarfile.open(path) as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            content = archive.extractfile(member)
            inner = _content_digest(member.name, content.read()) if content else ""
            digest.update(member.name.encode() + b"\0" + inner.encode())
    return digest.hexdigest()


def _lossy_digest(path: Path, result: ExportResult) -> str:
    frames, times, _ = decode_rgba(path, "libvpx-vp9")
    exact = _exact_frames(result)
    assert len(exact) == len(frames), (len(exact), len(frames))
    for i, (ours, want) in enumerate(zip(frames, exact, strict=True)):
        diff = float(np.abs(ours.astype(np.int16) - want.astype(np.int16)).mean())
        if diff > LOSSY_TOLERANCE:
            return f"frame {i} differs by {diff:.2f} on average"
    return f"{len(frames)} frames at " + ",".join(f"{t:.3f}" for t in times)


def _exact_frames(result: ExportResult) -> list[np.ndarray]:
    with zipfile.ZipFile(result.paths("frames_zip")[0]) as archive:
        names = sorted(n for n in archive.namelist() if n.endswith(".png"))
        return [np.asarray(Image.open(io.BytesIO(archive.read(n))).convert("RGBA")) for n in names]


def _gif_digest(path: Path, result: ExportResult) -> str:
    frames, times, _ = decode_rgba(path)
    exact = _exact_frames(result)
    assert len(exact) == len(frames), (len(exact), len(frames))
    worst = 0.0
    for i, (ours, want) in enumerate(zip(frames, exact, strict=True)):
        shown = want[..., 3] >= 128
        if not np.array_equal(ours[..., 3] >= 128, shown):
            return f"frame {i} shows other pixels than the frame it was made from"
        diff = np.abs(ours[..., :3].astype(np.int16) - want[..., :3].astype(np.int16))[shown]
        worst = max(worst, float(diff.mean()) if diff.size else 0.0)
        if worst > GIF_TOLERANCE:
            return f"frame {i} differs by {worst:.2f} on average"
    return f"{len(frames)} frames at " + ",".join(f"{t:.3f}" for t in times)


def _clip_digest(path: Path, source: Path) -> str:
    frames, times, _ = decode_rgba(path, "h264")
    with av.open(str(source)) as container:
        wanted = [frame.to_image().convert("RGB") for frame in container.decode(video=0)]
    assert len(wanted) == len(frames), (len(wanted), len(frames))
    for i, (ours, want) in enumerate(zip(frames, wanted, strict=True)):
        scaled = np.asarray(want.resize((ours.shape[1], ours.shape[0]), Image.Resampling.BICUBIC))
        diff = float(np.abs(ours[..., :3].astype(np.int16) - scaled.astype(np.int16)).mean())
        if diff > LOSSY_TOLERANCE:
            return f"frame {i} differs from the source by {diff:.2f} on average"
    return f"{len(frames)} frames at " + ",".join(f"{t:.3f}" for t in times)


def differences(found: dict[str, dict[str, str]]) -> list[str]:
    recorded: dict[str, dict[str, str]] = json.loads(GOLDEN.read_text())
    wrong = []
    for case in recorded.keys() | found.keys():
        want, got = recorded.get(case, {}), found.get(case, {})
        keys = sorted(want.keys() | got.keys())
        wrong += [f"{case}/{k}: {got.get(k)}" for k in keys if want.get(k) != got.get(k)]
    return wrong


def oversized(sizes: Sizes) -> list[str]:
    """PNGs missing, new, or grown past PNG_GROWTH times their recorded size."""
    recorded: Sizes = json.loads(PNG_SIZES.read_text())
    wrong = []
    for case in recorded.keys() | sizes.keys():
        want, got = recorded.get(case, {}), sizes.get(case, {})
        for key in sorted(want.keys() | got.keys()):
            if key not in want or key not in got:
                wrong.append(f"{case}/{key}: PNG {'missing' if key in want else 'new'}")
            elif got[key] > PNG_GROWTH * want[key]:
                wrong.append(f"{case}/{key}: {got[key]} bytes, over {PNG_GROWTH} x {want[key]}")
    return wrong


def check(work: Path) -> list[str]:
    found, sizes = record(work)
    return differences(found) + oversized(sizes)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        found, sizes = record(Path(tmp))
    if sys.argv[1:] == ["write"]:
        GOLDEN.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        PNG_SIZES.write_text(json.dumps(sizes, indent=1, sort_keys=True) + "\n")
        return
    if sys.argv[1:] == ["write-sizes"]:  # pixels unchanged, sizes of the reference
        PNG_SIZES.write_text(json.dumps(sizes, indent=1, sort_keys=True) + "\n")
        return
    wrong = differences(found) + oversized(sizes)
    print("\n".join(wrong) or "all outputs identical")
    raise SystemExit(1 if wrong else 0)


if __name__ == "__main__":
    main()
