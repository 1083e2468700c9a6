"""Crafted outputs a hostile service returns: packs carrying scripts, assemblies and
project settings, entries that climb out or link out, and archives whose metadata or
contents are bombs. Each builder returns the archive's bytes."""

from __future__ import annotations

import gzip
import io
import struct
import tarfile
import uuid
import zipfile
import zlib

from tests.support.calls import png_bytes

__all__ = ["png_bytes"]

TOOL_SCRIPT = (
    b"@tool\nextends EditorPlugin\nfunc _enter_tree():\n"
    b'\tOS.execute("sh", ["-c", "touch /tmp/owned"])\n'
)
EDITOR_SCRIPT = (
    b"using UnityEditor;\n[InitializeOnLoad] public static class Evil {\n"
    b'  static Evil() { System.Diagnostics.Process.Start("sh"); }\n}\n'
)
TRES = (
    '[gd_resource type="SpriteFrames" load_steps=2 format=3]\n\n'
    '[ext_resource type="Texture2D" path="res://hero/hero.png" id="1"]\n\n'
    "[resource]\nanimations = []\n"
)
TRES_WITH_SCRIPT = (
    '[gd_resource type="SpriteFrames" load_steps=2 format=3]\n\n'
    '[sub_resource type="GDScript" id="1"]\nscript/source = "@tool\\nextends Node\\n"\n\n'
    '[resource]\nscript = SubResource("1")\nanimations = []\n'
)


def godot_zip(extra: dict[str, bytes], *, tres: str = TRES) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr("hero/hero.tres", tres)
        bundle.writestr("hero/hero.png", png_bytes())
        for name, data in extra.items():
            bundle.writestr(name, data)
    return buffer.getvalue()


def godot_with_scripts() -> bytes:
    return godot_zip({"addons/evil/plugin.gd": TOOL_SCRIPT, "project.godot": b"config_version=5\n"})


def zip_with_symlink() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr("hero/hero.png", png_bytes())
        link = zipfile.ZipInfo("hero/link.png")
        link.external_attr = 0o120777 << 16
        bundle.writestr(link, "../../../../../../etc/passwd")
    return buffer.getvalue()


def zip_bomb(megabytes: int = 64) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("hero/hero.png", png_bytes())
        with bundle.open("hero/big.png", "w", force_zip64=True) as sink:
            block = bytes(1 << 20)
            for _ in range(megabytes):
                sink.write(block)
    return buffer.getvalue()


def zip_traversal() -> bytes:
    return godot_zip({"../../../../escape/pwned.png": png_bytes()})


def _tar_gz(entries: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=1) as raw,
        tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as bundle,
    ):
        for info, data in entries:
            if data is not None:
                info.size = len(data)
            bundle.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


def unitypackage(
    assets: dict[str, bytes], extra: list[tuple[tarfile.TarInfo, bytes | None]] | None = None
) -> bytes:
    entries: list[tuple[tarfile.TarInfo, bytes | None]] = []
    for pathname, data in assets.items():
        guid = uuid.uuid4().hex
        entries.append(_file(f"{guid}/pathname", pathname.encode()))
        entries.append(_file(f"{guid}/asset", data))
        meta = f"fileFormatVersion: 2\nguid: {guid}\n".encode()
        entries.append(_file(f"{guid}/asset.meta", meta))
    return _tar_gz(entries + (extra or []))


def unity_with_code() -> bytes:
    return unitypackage(
        {
            "Assets/Animations/hero/hero.png": png_bytes(),
            "Assets/Animations/hero/Editor/Evil.cs": EDITOR_SCRIPT,
            "Assets/Plugins/evil.dll": b"MZ\x90\x00" + bytes(64),
        }
    )


def unity_outside_assets() -> bytes:
    return unitypackage(
        {
            "Assets/Animations/hero/hero.png": png_bytes(),
            "ProjectSettings/ProjectSettings.asset": b"%YAML 1.1\n",
        }
    )


def unity_climbing() -> bytes:
    return unitypackage({"Assets/../../../escape/pwned.png": png_bytes()})


def unity_with_symlink() -> bytes:
    link = tarfile.TarInfo(f"{uuid.uuid4().hex}/asset")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    return unitypackage({"Assets/Animations/hero/hero.png": png_bytes()}, [(link, None)])


def _header(name: bytes, kind: bytes, size: int) -> bytes:
    """One ustar header block with a correct checksum."""
    header = bytearray(512)
    header[0 : len(name)] = name
    header[100:108] = b"0000644\x00"
    header[108:116] = b"0000000\x00"
    header[116:124] = b"0000000\x00"
    header[124:136] = f"{size:011o}\x00".encode()
    header[136:148] = b"00000000000\x00"
    header[156:157] = kind
    header[257:263] = b"ustar\x00"
    header[263:265] = b"00"
    header[148:156] = b" " * 8
    header[148:156] = f"{sum(header):06o}\x00 ".encode()
    return bytes(header)


def tar_with_huge_metadata(kind: bytes, size: int) -> bytes:
    """A gzip tar whose first header is a pax header (b"x") or GNU long name (b"L") of
    size bytes, streamed so building it never holds them in memory."""
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    parts = [compressor.compress(_header(b"././@meta", kind, size))]
    block = b"a" * (1 << 20) if kind == b"L" else b"9" * (1 << 20)
    left = size
    while left:
        step = min(left, len(block))
        parts.append(compressor.compress(block[:step]))
        left -= step
    parts.append(compressor.compress(bytes(-size % 512)))
    parts.append(compressor.compress(_header(b"x/pathname", b"0", 4) + b"Asse" + bytes(508)))
    parts.append(compressor.compress(bytes(1024)))
    parts.append(compressor.flush())
    return b"".join(parts)


def png_header_bomb(width: int = 20000, height: int = 20000) -> bytes:
    """A PNG whose header declares width x height pixels, with almost no data behind it."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(bytes(4096)))
        + chunk(b"IEND", b"")
    )


def frames_zip_bomb(entries: int = 5000) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        frame = png_bytes()
        for index in range(entries):
            bundle.writestr(f"frame_{index:05d}.png", frame)
    return buffer.getvalue()


def frames_zip_of(picture: bytes, count: int = 3) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        for index in range(count):
            bundle.writestr(f"frame_{index:03d}.png", picture)
    return buffer.getvalue()
