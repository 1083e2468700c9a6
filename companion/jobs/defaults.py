"""What a job for a project asks for when its settings leave it open, decided by the
project's engine and the picture: a Godot project gets what makes a SpriteFrames (the
sheet, its JSON and the Godot pack), a Unity project what makes sprites and a clip (the
sheet, its JSON and the Unity pack), and a picture with transparent pixels keeps them
(an alpha-key video, exported transparent). Whatever the user chose is kept as given:
these fill only what nobody chose, so nothing is paid for that the project cannot use."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from companion.api.schema import (
    ExportFormat,
    ExportOptions,
    ExportTransparency,
    GenerationTransparency,
    VideoOptions,
)

ENGINE_FORMATS: dict[str, list[ExportFormat]] = {
    "godot": [ExportFormat.SPRITESHEET, ExportFormat.SPRITESHEET_JSON, ExportFormat.GODOT_PACK],
    "unity": [ExportFormat.SPRITESHEET, ExportFormat.SPRITESHEET_JSON, ExportFormat.UNITY_PACK],
}


def has_alpha(image: Path) -> bool:
    """Does the picture hold a pixel that is not fully opaque? (An RGBA file whose every
    pixel is opaque has nothing to keep.)"""
    try:
        with Image.open(image) as picture:
            if picture.mode not in ("RGBA", "LA", "PA", "RGBa", "La") and (
                "transparency" not in picture.info
            ):
                return False
            lowest = picture.convert("RGBA").getchannel("A").getextrema()[0]
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        return False  # not read here; the checks before the quote say why
    return isinstance(lowest, int) and lowest < 255


def for_engine(
    engine: str, image: Path, export: ExportOptions, video: VideoOptions
) -> tuple[ExportOptions, VideoOptions]:
    """export and video with what the engine and the picture need filled in where the
    user left it open. Transparency is filled only for the service's default model (a
    model chosen by name may not offer alpha keying)."""
    if engine in ENGINE_FORMATS and not export.formats_given:
        export = export.model_copy(update={"output_formats": list(ENGINE_FORMATS[engine])})
    open_transparency = (
        "transparency" not in video.model_fields_set
        and "transparent" not in export.model_fields_set
        and video.model is None
    )
    if open_transparency and has_alpha(image):
        video = video.model_copy(update={"transparency": GenerationTransparency(mode="alpha_key")})
        export = export.model_copy(update={"transparent": ExportTransparency(enabled=True)})
    return export, video
