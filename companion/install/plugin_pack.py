"""Release artifacts of the editor plugins, from the copies shipped in this package.

Godot: the Asset Library zip, whose only top folder is `addons/companion/` (plugin.cfg,
LICENSE with year and holder, icon.png, the scripts and scenes). Unity: the package folder
as a git URL with `?path=` serves it (package.json with its module dependencies and
samples, LICENSE.md, CHANGELOG.md, `Samples~`), and the same as a .tgz for a tarball
install. Both refuse to pack a plugin whose version is not this package's."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import zipfile
from pathlib import Path

from companion import __version__
from companion.install.editor_plugins import RECORD, source, version_of
from companion.install.errors import PluginError

# Fixed timestamps: the same sources always give the same bytes.
_ZIP_TIME = (2020, 1, 1, 0, 0, 0)
_TAR_TIME = 1577836800


def _files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and p.name != RECORD and "__pycache__" not in p.parts
    )


def _check_version(engine: str, folder: Path) -> None:
    found = version_of(engine, folder)  # type: ignore[arg-type]
    if found != __version__:
        raise PluginError(
            f"the {engine} plugin says version {found} but companion is {__version__}; make "
            "them equal before packing"
        )


def godot_zip(out: Path) -> Path:
    addon = source("godot")
    _check_version("godot", addon)
    for needed in ("plugin.cfg", "LICENSE", "icon.png"):
        if not (addon / needed).is_file():
            raise PluginError(f"the Godot addon lacks {needed}; the Asset Library needs it")
    target = out / f"companion-godot-{__version__}.zip"
    out.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in _files(addon):
            name = "addons/companion/" + path.relative_to(addon).as_posix()
            info = zipfile.ZipInfo(name, _ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    target.write_bytes(buffer.getvalue())
    return target


def unity_tarball(out: Path) -> Path:
    package = source("unity")
    _check_version("unity", package)
    manifest = json.loads((package / "package.json").read_text())
    for needed in ("LICENSE.md", "CHANGELOG.md"):
        if not (package / needed).is_file():
            raise PluginError(f"the Unity package lacks {needed}")
    for sample in manifest.get("samples", []):
        if not (package / sample["path"]).is_dir():
            raise PluginError(f"package.json lists a sample at {sample['path']}, not there")
    target = out / f"{manifest['name']}-{__version__}.tgz"
    out.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    # npm's layout, which Unity's Package Manager reads: everything under package/.
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path in _files(package):
            data = path.read_bytes()
            info = tarfile.TarInfo("package/" + path.relative_to(package).as_posix())
            info.size, info.mtime, info.mode = len(data), _TAR_TIME, 0o644
            archive.addfile(info, io.BytesIO(data))
    target.write_bytes(gzip.compress(buffer.getvalue(), mtime=0))
    return target
