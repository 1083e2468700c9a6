"""The one table of export formats and what is read from it: the schema's rules, the
media engine's catalog, the sandbox's packs and the command line's value lists."""

from __future__ import annotations

from companion.api import formats
from companion.api.formats import TABLE, ExportFormat
from companion.cli import options
from companion.media import catalog
from companion.sandbox.account.pricing import PREMIUM_FORMATS

PACKS = {"unity_pack", "godot_pack", "unreal_paper2d_pack", "cocos_creator_pack", "construct3_pack"}


def test_every_format_has_one_row_in_the_spec_order() -> None:
    assert list(TABLE) == list(ExportFormat)
    assert formats.FORMAT_NAMES == catalog.FORMATS == options.FORMAT_NAMES
    assert len(TABLE) == 13


def test_what_is_read_from_the_table() -> None:
    assert {
        "spritesheet",
        "spritesheet_json",
        "unity_meta",
        "unity_pack",
        "godot_pack",
        "unreal_paper2d_pack",
        "cocos_creator_pack",
    } == catalog.SHEET_FORMATS
    assert formats.ENGINE_PACKS == PACKS
    assert options.ALPHA_ONLY_FORMATS == ("webm_alpha", "prores_4444")
    assert {"webm_alpha", "prores_4444"} == formats.ALPHA_REQUIRED_FORMATS
    assert set(ExportFormat) - formats.ALPHA_CAPABLE_FORMATS == {
        "clip_video",
        "spritesheet_json",
        "unity_meta",
    }
    assert formats.METADATA_TEXTURE == {
        "spritesheet_json": "spritesheet",
        "unity_meta": "spritesheet",
    }
    assert PACKS | {"webm_alpha", "prores_4444"} == PREMIUM_FORMATS


def test_file_names_and_mime_types() -> None:
    assert catalog.FILE_SUFFIX["unity_meta"] == ".png.meta"
    assert catalog.FILE_SUFFIX["video_preview"] == "_preview.png"
    assert set(catalog.FILE_SUFFIX) == {*catalog.FORMATS, "video_preview"}
    assert catalog.MIME_TYPES["unity_pack"] == "application/gzip"
    assert set(catalog.MIME_TYPES) == set(catalog.FORMATS)
