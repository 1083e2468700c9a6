"""PNG encoders on this project's own outputs: CPU time, size against today's writer, and
decoded pixels (which must be equal).

The images are those of the export bench's 13-format job (240 frames of 512x512 from the
10 s source, keyed): its spritesheet page (8192x7680) and its frames, and the 6-format
job's page (24 frames). Every candidate encodes them on one thread; the figure is CPU
seconds (the export is CPU-bound on two cores, so CPU is what an encoder costs it) and
the total size as a multiple of the reference (Pillow's adaptive filters, zlib level 3:
what the writers did before) and the pixels checked after a decode. Candidates: Pillow's filters with another deflate, and one
fixed filter (computed in numpy) per image with zlib, zlib-ng, ISA-L or libdeflate, fpng,
and the writers' encoder (companion/media/formats/png_stream.encode_png). `--only TEXT`
runs the candidates whose name holds TEXT beside those two; `--only ""` runs them all
(the optional encoders are measured when installed: zlib-ng is a dependency; isal,
deflate and fpng are not).

    python bench/png_bench.py [--frames 240] [--only TEXT]
"""

from __future__ import annotations

import argparse
import importlib
import io
import struct
import sys
import tempfile
import time
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from export_bench import make_source  # noqa: E402

from companion.media import ExportSpec, export_video  # noqa: E402
from companion.media.formats.png_stream import LEVEL, encode_png  # noqa: E402

Encoder = Callable[[np.ndarray], bytes]
SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png(image: np.ndarray, stream: bytes) -> bytes:
    height, width = image.shape[:2]
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", stream) + _chunk(b"IEND", b"")


def pillow(image: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(image, "RGBA").save(buffer, "PNG", compress_level=3)
    return buffer.getvalue()


def pillow_filtered(image: np.ndarray) -> bytes:
    """Pillow's filtered scanlines (its per-row choice), read back from a stored deflate."""
    return zlib.decompress(Image.fromarray(image, "RGBA").tobytes("zip", "RGBA", 0, 0))


def fixed_filter(image: np.ndarray, kind: int) -> np.ndarray:
    """The filtered scanlines (filter byte, then the row) with one filter for all rows:
    1 Sub, 2 Up."""
    height, width = image.shape[:2]
    rows = image.reshape(height, 4 * width)
    out = np.empty((height, 1 + 4 * width), dtype=np.uint8)
    out[:, 0] = kind
    if kind == 1:
        out[:, 1:5] = rows[:, :4]
        np.subtract(rows[:, 4:], rows[:, :-4], out=out[:, 5:])
    elif kind == 2:
        out[0, 1:] = rows[0]
        np.subtract(rows[1:], rows[:-1], out=out[1:, 1:])
    else:
        out[:, 1:] = rows
    return out


def available(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def deflaters() -> dict[str, Callable[[bytes], bytes]]:
    """zlib-format compressors by name and level (window 15)."""
    found: dict[str, Callable[[bytes], bytes]] = {}
    for level in (1, 3):
        found[f"zlib {level}"] = lambda data, lv=level: _stream(zlib, data, lv)
    zlib_ng = available("zlib_ng.zlib_ng")
    if zlib_ng is not None:
        for level in (1, 2, 3, 4):
            found[f"zlib-ng {level}"] = lambda data, lv=level: _stream(zlib_ng, data, lv)
    isal = available("isal.isal_zlib")
    if isal is not None:
        for level in (0, 1, 2, 3):
            found[f"isal {level}"] = lambda data, lv=level: isal.compress(data, lv)
    libdeflate = available("deflate")
    if libdeflate is not None:
        for level in (1, 3, 6):
            found[f"libdeflate {level}"] = lambda data, lv=level: libdeflate.zlib_compress(data, lv)
    return found


def _stream(module: ModuleType, data: bytes, level: int) -> bytes:
    deflate = module.compressobj(level, zlib.DEFLATED, 15, 9, zlib.Z_FILTERED)
    return bytes(deflate.compress(data) + deflate.flush())


def candidates() -> dict[str, Encoder]:
    found: dict[str, Encoder] = {
        "pillow adaptive + zlib 3 (before)": pillow,
        f"none/sub/up by sample + zlib-ng {LEVEL} (chosen)": encode_png,
    }
    fpng = available("fpng")
    if fpng is not None:
        found["fpng"] = lambda im: bytes(fpng.from_ndarray(np.ascontiguousarray(im)))
    for name, deflate in deflaters().items():
        found[f"pillow adaptive + {name}"] = lambda im, d=deflate: _png(im, d(pillow_filtered(im)))
        for kind, label in ((1, "sub"), (2, "up")):
            found[f"{label} + {name}"] = lambda im, d=deflate, k=kind: _png(
                im, d(fixed_filter(im, k).tobytes())
            )
    return found


def images(work: Path, frames: int) -> dict[str, list[np.ndarray]]:
    """The bench jobs' sheet pages and frames, decoded."""
    found: dict[str, list[np.ndarray]] = {}
    for label, duration, count in (("24", 5.0, 24), (str(frames), 10.0, frames)):
        source = make_source(work / f"src-{label}.mp4", duration)
        spec = ExportSpec(
            formats=("frames_zip", "spritesheet"),
            frame_count=count,
            width=512,
            height=512,
            key_color=(0, 255, 0),
            name="bench",
        )
        result = export_video(source, work / f"out-{label}", spec)
        sheet = result.paths("spritesheet")
        found[f"sheet, {count} frames"] = [np.asarray(Image.open(p).convert("RGBA")) for p in sheet]
        if label != "24":
            with zipfile.ZipFile(result.paths("frames_zip")[0]) as archive:
                found[f"{count} frames"] = [
                    np.asarray(Image.open(io.BytesIO(archive.read(n))).convert("RGBA"))
                    for n in sorted(archive.namelist())
                ]
    return found


def measure(encode: Encoder, pictures: list[np.ndarray]) -> tuple[float, int, bool]:
    start = time.process_time()
    outputs = [encode(p) for p in pictures]
    seconds = time.process_time() - start
    same = all(
        np.array_equal(np.asarray(Image.open(io.BytesIO(data)).convert("RGBA")), p)
        for data, p in zip(outputs, pictures, strict=True)
    )
    return seconds, sum(len(d) for d in outputs), same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=240)
    parser.add_argument("--only", default="fpng", help="candidates whose name holds this")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sets = images(Path(tmp), args.frames)
    encoders = {
        k: v for k, v in candidates().items() if args.only in k or "before" in k or "chosen" in k
    }
    for label, pictures in sets.items():
        print(f"{label}: {len(pictures)} image(s), {sum(p.nbytes for p in pictures) >> 20} MiB")
        base_s, base_size, _ = measure(pillow, pictures)
        for name, encode in encoders.items():
            seconds, size, same = measure(encode, pictures)
            print(
                f"  {name:44s} {seconds:6.2f} CPU-s ({seconds / base_s:4.2f}x)  "
                f"{size / 1e6:7.2f} MB ({size / base_size:4.2f}x)  "
                f"{'pixels equal' if same else 'PIXELS DIFFER'}"
            )


if __name__ == "__main__":
    main()
