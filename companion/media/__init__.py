"""The media engine: decode and sample videos, write every export format, synthesize
sandbox videos, build preview contact sheets. Pure functions on files: no HTTP, no
database.

Other packages import from here. Names, format tables and the error load at once (no
numpy, PyAV or Pillow); the rest loads on first use, so a command that only checks a
name pays nothing for the codecs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion import front_door
from companion.media.catalog import FILE_SUFFIX, FORMATS, MIME_TYPES, SHEET_FORMATS
from companion.media.engine_text import folder_text_refusal, godot_res_path, godot_string
from companion.media.errors import EngineTextError, MediaError
from companion.media.names import (
    ENDS,
    MAX_NAME_BYTES,
    MAX_NAME_CHARS,
    clean_name,
    is_clean_name,
)

if TYPE_CHECKING:
    from companion.media.demo_art import SAMPLE_ART, draw_character
    from companion.media.export import export_video
    from companion.media.formats.common import (
        PIVOTS,
        Animation,
        FrameRect,
        SheetPage,
        frame_name,
        stable_hex,
    )
    from companion.media.formats.sheet import (
        DEFAULT_SPACING,
        MAX_SHEET_SIDE,
        MAX_SPACING,
        NO_SPACING,
        Spacing,
    )
    from companion.media.from_schema import export_spec
    from companion.media.keying.chroma import ChromaKeyer, parse_hex_colour
    from companion.media.keying.key_pick import far_key_colour, hex_colour
    from companion.media.pixel.art import PixelArt, art_of, read_art
    from companion.media.pixel.palette import palette_from_hex, read_palette
    from companion.media.preview import build_contact_sheet
    from companion.media.source.sampling import MIN_SELECTION_SECONDS, SamplePlan, plan_samples
    from companion.media.source.video_info import VideoInfo, probe
    from companion.media.spec import ExportOutput, ExportResult, ExportSpec
    from companion.media.synth import SynthSpec, synthesize

# Loaded on first use: name -> module that defines it. No name here is also a module's
# name: importing such a module would put the module where the name should be.
_LAZY = {
    "ChromaKeyer": "keying.chroma",
    "parse_hex_colour": "keying.chroma",
    "SAMPLE_ART": "demo_art",
    "draw_character": "demo_art",
    "export_video": "export",
    "far_key_colour": "keying.key_pick",
    "PixelArt": "pixel.art",
    "art_of": "pixel.art",
    "read_art": "pixel.art",
    "palette_from_hex": "pixel.palette",
    "read_palette": "pixel.palette",
    "hex_colour": "keying.key_pick",
    "PIVOTS": "formats.common",
    "Animation": "formats.common",
    "FrameRect": "formats.common",
    "SheetPage": "formats.common",
    "frame_name": "formats.common",
    "stable_hex": "formats.common",
    "DEFAULT_SPACING": "formats.sheet",
    "MAX_SHEET_SIDE": "formats.sheet",
    "MAX_SPACING": "formats.sheet",
    "NO_SPACING": "formats.sheet",
    "Spacing": "formats.sheet",
    "export_spec": "from_schema",
    "build_contact_sheet": "preview",
    "VideoInfo": "source.video_info",
    "probe": "source.video_info",
    "MIN_SELECTION_SECONDS": "source.sampling",
    "SamplePlan": "source.sampling",
    "plan_samples": "source.sampling",
    "ExportOutput": "spec",
    "ExportResult": "spec",
    "ExportSpec": "spec",
    "SynthSpec": "synth",
    "synthesize": "synth",
}


__getattr__ = front_door(__name__, globals(), _LAZY)


__all__ = [
    "DEFAULT_SPACING",
    "ENDS",
    "FILE_SUFFIX",
    "FORMATS",
    "MAX_NAME_BYTES",
    "MAX_NAME_CHARS",
    "MAX_SHEET_SIDE",
    "MAX_SPACING",
    "MIME_TYPES",
    "MIN_SELECTION_SECONDS",
    "NO_SPACING",
    "PIVOTS",
    "SAMPLE_ART",
    "SHEET_FORMATS",
    "Animation",
    "ChromaKeyer",
    "EngineTextError",
    "ExportOutput",
    "ExportResult",
    "ExportSpec",
    "FrameRect",
    "MediaError",
    "PixelArt",
    "SamplePlan",
    "SheetPage",
    "Spacing",
    "SynthSpec",
    "VideoInfo",
    "art_of",
    "build_contact_sheet",
    "clean_name",
    "draw_character",
    "export_spec",
    "export_video",
    "far_key_colour",
    "folder_text_refusal",
    "frame_name",
    "godot_res_path",
    "godot_string",
    "hex_colour",
    "is_clean_name",
    "palette_from_hex",
    "parse_hex_colour",
    "plan_samples",
    "probe",
    "read_art",
    "read_palette",
    "stable_hex",
    "synthesize",
]
