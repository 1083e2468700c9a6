"""Hostile archives are refused with a clear error and nothing lands outside (or in)
the destination."""

from __future__ import annotations

import io
import tarfile
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.install.errors import ArchiveError
from companion.install.safety.archive import Limits, extract
from companion.media import ExportSpec, export_video
from tests.support import hostile_archives as crafted


def make_zip(path: Path, entries: list[tuple[str, bytes, int | None]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if mode is not None:
                info.external_attr = mode << 16
            bundle.writestr(info, data)
    return path


def make_tar(path: Path, members: list[tarfile.TarInfo], payloads: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as bundle:
        for member in members:
            data = payloads.get(member.name)
            if data is not None:
                member.size = len(data)
            bundle.addfile(member, io.BytesIO(data) if data is not None else None)
    return path


def tar_member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.type = kind
    member.linkname = link
    return member


def snapshot(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "world"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    dest = outside / "project" / "animations"
    return outside, dest


@pytest.mark.parametrize(
    "name",
    [
        "../evil.txt",
        "/etc/evil.txt",
        "C:\\evil.txt",
        "c:evil.txt",
        "a/../../evil.txt",
        "..\\..\\evil.txt",
        "a/./../../x",
    ],
)
def test_zip_names_that_escape(tmp_path: Path, place: tuple[Path, Path], name: str) -> None:
    outside, dest = place
    archive = make_zip(tmp_path / "bad.zip", [("ok.png", b"fine", None), (name, b"evil", None)])
    before = snapshot(outside)
    with pytest.raises(ArchiveError):
        extract(archive, dest)
    assert snapshot(outside) - {"project"} == before - {"project"}
    assert not dest.exists() or not any(dest.iterdir())


def test_zip_symlink_is_refused(tmp_path: Path, place: tuple[Path, Path]) -> None:
    _, dest = place
    archive = make_zip(tmp_path / "link.zip", [("link", b"/etc/passwd", 0o120777)])
    with pytest.raises(ArchiveError, match="symbolic link"):
        extract(archive, dest)
    assert not (dest / "link").exists()


@pytest.mark.parametrize(
    "kind,match",
    [
        (tarfile.SYMTYPE, "link"),
        (tarfile.LNKTYPE, "link"),
        (tarfile.CHRTYPE, "device"),
        (tarfile.BLKTYPE, "device"),
        (tarfile.FIFOTYPE, "device"),
    ],
)
def test_tar_special_entries(
    tmp_path: Path, place: tuple[Path, Path], kind: bytes, match: str
) -> None:
    outside, dest = place
    archive = make_tar(
        tmp_path / "bad.tar.gz",
        [tar_member("fine.txt"), tar_member("special", kind, "../../keep.txt")],
        {"fine.txt": b"ok"},
    )
    with pytest.raises(ArchiveError, match=match):
        extract(archive, dest)
    assert (outside / "keep.txt").read_text() == "mine"
    assert not dest.exists() or not any(dest.iterdir())


def test_tar_traversal(tmp_path: Path, place: tuple[Path, Path]) -> None:
    outside, dest = place
    archive = make_tar(
        tmp_path / "bad.tar.gz", [tar_member("../../escape.txt")], {"../../escape.txt": b"x"}
    )
    with pytest.raises(ArchiveError, match=r"\.\."):
        extract(archive, dest)
    assert not (outside / "escape.txt").exists()


def test_zip_bomb(tmp_path: Path, place: tuple[Path, Path]) -> None:
    _, dest = place
    archive = make_zip(tmp_path / "bomb.zip", [("zeros.bin", bytes(64 * 2**20), None)])
    assert archive.stat().st_size < 2**20
    with pytest.raises(ArchiveError, match="bomb"):
        extract(archive, dest)
    assert not dest.exists() or not any(dest.iterdir())


def test_tar_bombs(tmp_path: Path, place: tuple[Path, Path]) -> None:
    _, dest = place
    many = make_tar(
        tmp_path / "many.tar.gz",
        [tar_member(f"f{i}") for i in range(300)],
        {f"f{i}": b"x" for i in range(300)},
    )
    with pytest.raises(ArchiveError, match="entries"):
        extract(many, dest, Limits(max_entries=100))
    big = make_tar(tmp_path / "big.tar.gz", [tar_member("zeros")], {"zeros": bytes(64 * 2**20)})
    with pytest.raises(ArchiveError, match="bomb"):
        extract(big, dest)
    assert not dest.exists() or not any(dest.iterdir())


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_garbage_and_duplicates(tmp_path: Path, place: tuple[Path, Path]) -> None:
    _, dest = place
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"PK\x03\x04" + bytes(100))
    with pytest.raises(ArchiveError, match="damaged"):
        extract(junk, dest)
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(ArchiveError, match="neither"):
        extract(text, dest)
    twice = make_zip(tmp_path / "twice.zip", [("a.txt", b"1", None), ("a.txt", b"2", None)])
    with pytest.raises(ArchiveError, match="twice"):
        extract(twice, dest)


def test_real_packs_extract_whole(index_video: Path, tmp_path: Path) -> None:
    result = export_video(
        index_video,
        tmp_path / "out",
        ExportSpec(
            formats=("unity_pack", "godot_pack", "construct3_pack"),
            frame_count=4,
            width=64,
            height=64,
            name="hero",
        ),
    )
    godot = extract(result.paths("godot_pack")[0], tmp_path / "godot")
    assert sorted(p.name for p in godot) == ["hero.png", "hero.tres"]
    unity = extract(result.paths("unity_pack")[0], tmp_path / "unity")
    assert len(unity) == 6 and {p.name for p in unity} == {"asset", "asset.meta", "pathname"}
    construct = extract(result.paths("construct3_pack")[0], tmp_path / "construct")
    assert len(construct) == 4


def _peak_bytes(action: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        action()
    except ArchiveError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


@pytest.mark.parametrize(
    "kind,words", [(b"x", "pax header"), (b"L", "GNU long name"), (b"K", "GNU long name")]
)
def test_tar_metadata_bombs_are_refused_before_they_are_read(
    tmp_path: Path, place: tuple[Path, Path], kind: bytes, words: str
) -> None:
    """tarfile reads a pax header or GNU long name whole, whatever size it declares; the
    headers are counted against the caps before tarfile ever sees them."""
    _, dest = place
    archive = tmp_path / "meta.unitypackage"
    archive.write_bytes(crafted.tar_with_huge_metadata(kind, 24 * 2**20))
    with pytest.raises(ArchiveError, match=words):
        extract(archive, dest)
    assert _peak_bytes(lambda: extract(archive, dest)) < 4 * 2**20
    assert not dest.exists() or not any(dest.iterdir())


def test_tar_metadata_within_the_caps_still_extracts(
    tmp_path: Path, place: tuple[Path, Path]
) -> None:
    _, dest = place
    long_name = "Assets/" + "/".join(["d" * 60] * 4) + "/x.png"  # past the 100 of ustar
    archive = make_tar(tmp_path / "ok.tar.gz", [tar_member(long_name)], {long_name: b"png"})
    extract(archive, dest)
    assert (dest / long_name).read_bytes() == b"png"


def test_zip_directory_is_capped_before_zipfile_reads_it(
    tmp_path: Path, place: tuple[Path, Path]
) -> None:
    _, dest = place
    archive = tmp_path / "many.zip"
    archive.write_bytes(crafted.frames_zip_bomb(300))
    with pytest.raises(ArchiveError, match="300 entries"):
        extract(archive, dest, Limits(max_entries=100))
