"""What a job asks for when the user left it open, decided here once for every way in
(the command line, `jobs add`, the daemon's API and so the plugins, drop folders; a
re-cut keeps its source's): the picture and the project's engine decide it.

- A Godot project gets what makes a SpriteFrames (the sheet, its JSON and the Godot
  pack), a Unity project what makes sprites and a clip (the sheet, its JSON and the
  Unity pack), so nothing is paid for that the project cannot use.
- A picture with transparent pixels keeps them: the service is asked for a keyed
  background where the model offers one, and the export is asked to key it out. With no
  model named, the model the service uses then is not assumed to key: a listed model
  that does is named (so the request says what is paid for); when none does, or the
  listing cannot say, the request goes as given and the service decides at quote. A keyed
  video asked for (the dock's Transparent box, `--transparent`) is always keyed by the
  export too: never a coloured box. A key colour left open is one far from the
  picture's own hues. Opaque is only ever asked for (`--opaque`, an unticked box):
  `transparency.mode` "standard" or `export.transparent` false.
- Frames are the picture's own size (a 64 px sprite gives 64 px frames, a 16 px one
  16 px frames), from 16 to 1024 px. The service makes 64 to 1024: frames smaller than
  that are asked of it scaled up to its bound (the quote is of that size) and scaled
  down here from the kept clip, area-averaged (pixel art: nearest), see small_frames.
- A picture that is pixel art (alpha only 0 or 255, a few colours) gets pixel-art
  frames: its grid, its palette (or a named one), hard alpha (companion.media.pixel):
  one drawn on a grid (blocks at 2x, 3x, 4x) whatever its size, one at 1x up to
  SPRITE_SIDE a side. Bigger flat art at 1x is as often cel or vector art, made smooth
  unless `--pixel-art` (`"pixel_art": true`) or a palette asks; `--no-pixel-art` says
  otherwise for the rest; a painted picture asked for it is drawn in a few of its
  colours.
- An engine pack (Godot, Unity) gets trimmed sheets, and in place frames when they are
  transparent (registration reads the alpha): what a game uses as it is. `--no-trim`,
  `--no-in-place` (`"trim": false`, `"in_place": false`) say otherwise.
Whatever the user chose is kept as given: these fill only what nobody chose."""

from __future__ import annotations

import hashlib
import io
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from companion.api.schema import (
    ExportFormat,
    ExportOptions,
    ExportTransparency,
    GenerationTransparency,
    ModelsResponse,
    VideoOptions,
)
from companion.api.schema.export import LOCAL_MIN_SIDE, MAX_OUTPUT_SIDE, MIN_OUTPUT_SIDE
from companion.jobs.ask.finishing import Finishing
from companion.jobs.remote.models_cache import ALPHA_KEY, chosen_model, keying_model

ENGINE_FORMATS: dict[str, list[ExportFormat]] = {
    "godot": [ExportFormat.SPRITESHEET, ExportFormat.SPRITESHEET_JSON, ExportFormat.GODOT_PACK],
    "unity": [ExportFormat.SPRITESHEET, ExportFormat.SPRITESHEET_JSON, ExportFormat.UNITY_PACK],
}
SIDES = ("output_width", "output_height")
ENGINE_PACKS = frozenset({ExportFormat.GODOT_PACK.value, ExportFormat.UNITY_PACK.value})


@dataclass(frozen=True)
class Picture:
    """What the defaults need of the picture, from one read."""

    size: tuple[int, int] | None  # None: not read here (the checks before the quote say why)
    alpha: bool  # a pixel that is not fully opaque (an all-opaque RGBA has nothing to keep)
    key: str | None = None  # the key colour far from its hues, as #rrggbb
    pixel: dict[str, Any] | None = None  # its pixel art (PixelArt.as_json); None: not any


# Picture facts by the bytes' digest: a command, a quote and its animate each ask for the
# same picture more than once (the listing check, then the request), and a decode with a
# hue scan is the costly part. Keyed by content, so a file changed in place is read anew.
_FACTS: OrderedDict[str, Picture] = OrderedDict()
_FACTS_KEPT = 32
_FACTS_LOCK = threading.Lock()
PICTURE_READ_LIMIT = 64 * 2**20  # past the service's own bound; the checks refuse it
# A sprite drawn at 1x this small (a side, px) is drawn a pixel at a time: pixel art
# unasked when its colours are few and its alpha hard.
SPRITE_SIDE = 64


def picture(image: Path) -> Picture:
    """The picture's size, alpha and far key colour (Picture(None, False) when it is not
    a plain, readable picture: the checks before the quote say why)."""
    from companion.install import NotPlainFile, read_plain

    try:
        data = read_plain(image, PICTURE_READ_LIMIT)
    except (OSError, NotPlainFile):
        return Picture(None, False)
    digest = hashlib.sha256(data).hexdigest()
    with _FACTS_LOCK:
        known = _FACTS.get(digest)
        if known is not None:
            _FACTS.move_to_end(digest)
            return known
    facts = _picture_facts(data)
    with _FACTS_LOCK:
        _FACTS[digest] = facts
        while len(_FACTS) > _FACTS_KEPT:
            _FACTS.popitem(last=False)
    return facts


def _picture_facts(data: bytes) -> Picture:
    from companion.media import far_key_colour, hex_colour

    try:
        with Image.open(io.BytesIO(data)) as opened:
            size = opened.size
            if opened.mode not in ("RGBA", "LA", "PA", "RGBa", "La") and (
                "transparency" not in opened.info
            ):
                pixel = _pixel_art(opened.convert("RGBA"))
                return Picture(size, False, hex_colour(far_key_colour(opened)), pixel)
            rgba = opened.convert("RGBA")
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        return Picture(None, False)
    lowest = rgba.getchannel("A").getextrema()[0]
    alpha = isinstance(lowest, int) and lowest < 255
    return Picture(size, alpha, hex_colour(far_key_colour(rgba)), _pixel_art(rgba))


def _pixel_art(rgba: Image.Image) -> dict[str, Any] | None:
    """The picture's pixel art as a request keeps it, or None when it is none."""
    import numpy as np

    from companion.media import read_art

    if max(rgba.size) > MAX_OUTPUT_SIDE:  # past the frames made: not drawn a pixel at a time
        return None
    found = read_art(np.asarray(rgba))
    return None if found is None else found.as_json()


def pixel_unasked(image: Path) -> bool:
    """Pixel art when nothing says: a picture drawn on a grid (2x and up), or a sprite
    at 1x up to SPRITE_SIDE a side (see the module's rules)."""
    known = picture(image).pixel
    if known is None:
        return False
    size = known.get("size") or ()
    small = bool(size) and max(int(v) for v in size) <= SPRITE_SIDE
    return int(known.get("grid", 1)) >= 2 or small


def pixel_facts(image: Path, palette: list[str] | None) -> dict[str, Any] | None:
    """The pixel art a job asked for it draws the picture as (its own; a painted one's
    few colours), with the named palette in place when given; None when the picture
    cannot be read here (the checks before the quote say why)."""
    import numpy as np

    from companion.media import art_of, palette_from_hex

    known = picture(image).pixel
    if known is not None:
        return repaletted(known, palette)
    from companion.install import NotPlainFile, read_plain

    try:
        data = read_plain(image, PICTURE_READ_LIMIT)
        with Image.open(io.BytesIO(data)) as opened:
            rgba = np.asarray(opened.convert("RGBA"))
    except (OSError, ValueError, NotPlainFile, SyntaxError, Image.DecompressionBombError):
        return None
    return art_of(rgba, palette_from_hex(palette) if palette else None).as_json()


def repaletted(pixel: Mapping[str, Any], palette: list[str] | None) -> dict[str, Any]:
    """Pixel-art facts a request keeps, drawn in another palette (None: their own)."""
    from companion.media import PixelArt, palette_from_hex

    named = palette_from_hex(palette) if palette else None
    return PixelArt.of_json(pixel).with_palette(named).as_json()


def has_alpha(image: Path) -> bool:
    """Does the picture hold a pixel that is not fully opaque?"""
    return picture(image).alpha


def offers_alpha(video: VideoOptions, models: ModelsResponse | None) -> bool:
    """May the job be asked for a keyed video without being asked? A model named keys
    when the listing says so. With none named, the service's own choice is asked to
    (it decides at quote) unless the listing says no model keys: then it cannot."""
    if video.model is not None:
        model = chosen_model(models, video.model) if models is not None else None
        return model is not None and ALPHA_KEY in model.transparency_modes
    if models is None or not models.data:
        return True
    said = [m for m in models.data if m.transparency_modes]
    return len(said) < len(models.data) or any(ALPHA_KEY in m.transparency_modes for m in said)


def keyed_on(video: VideoOptions, models: ModelsResponse | None) -> VideoOptions:
    """video, asking for a keyed video, with a model named that makes one when none was
    named and the listing has one (see keying_model); else as it was."""
    if video.model is not None or models is None:
        return video
    model = keying_model(models, video)
    if model is None or model is models.default_model:
        return video
    return video.model_copy(update={"model": model.id})


def frame_size(
    source: tuple[int, int],
    width: int | None,
    height: int | None,
    low: int = MIN_OUTPUT_SIDE,
) -> tuple[int, int]:
    """The frame size for a picture of size source: the sides given are kept, one side
    given sets the other by the picture's proportions, none given is the picture's own
    size, each held within low and the service's upper bound (a picture past them is
    scaled to fit, keeping its proportions as far as the bounds allow)."""
    w, h = source
    if width is not None and height is not None:
        return width, height
    if width is not None:
        scale = width / w
    elif height is not None:
        scale = height / h
    else:
        scale = min(1.0, MAX_OUTPUT_SIDE / max(w, h))
        scale = max(scale, low / min(w, h))

    def bounded(side: float) -> int:
        return min(MAX_OUTPUT_SIDE, max(low, round(side)))

    return (width or bounded(w * scale), height or bounded(h * scale))


def _transparency(
    facts: Picture, export: ExportOptions, video: VideoOptions, models: ModelsResponse | None
) -> tuple[ExportOptions, VideoOptions]:
    asked = video.transparency
    export_said = "transparent" in export.model_fields_set
    if asked is None and not export_said:  # nobody said: the picture decides
        if not (facts.alpha and offers_alpha(video, models)):
            return export, video
        asked = GenerationTransparency(mode=ALPHA_KEY)
    elif asked is None:  # only the export said
        if not export.transparent.enabled:
            return export, video
        asked = GenerationTransparency(mode=ALPHA_KEY)  # the service refuses it unkeyed
    if asked.mode != ALPHA_KEY:
        return export, video
    if asked.key_color is None and facts.key is not None:  # left to the companion
        asked = GenerationTransparency(mode=ALPHA_KEY, key_selection="manual", key_color=facts.key)
    video = keyed_on(video.model_copy(update={"transparency": asked}), models)
    if not export_said:  # a keyed video is keyed out by the export, never left coloured
        export = export.model_copy(update={"transparent": ExportTransparency(enabled=True)})
    return export, video


def for_picture(
    image: Path,
    export: ExportOptions,
    video: VideoOptions,
    *,
    engine: str | None = None,
    models: ModelsResponse | None = None,
) -> tuple[ExportOptions, VideoOptions]:
    """export and video with what the engine and the picture decide filled in where the
    user left it open; models is the live listing when the caller has it at hand."""
    if engine in ENGINE_FORMATS and not export.formats_given:
        export = export.model_copy(update={"output_formats": list(ENGINE_FORMATS[engine])})
    facts = picture(image)
    given = export.model_fields_set
    if facts.size is not None and not {"output_width", "output_height"} <= given:
        width, height = frame_size(
            facts.size,
            export.output_width if "output_width" in given else None,
            export.output_height if "output_height" in given else None,
        )
        export = export.model_copy(update={"output_width": width, "output_height": height})
    return _transparency(facts, export, video, models)


def recut_local(
    source_video: Mapping[str, Any], export: ExportOptions, local: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """A re-cut's local export options with the key colour filled in: a clip made on a
    key colour is keyed out again (the colour it was made on) unless opaque is asked for
    (`export.transparent` false) or another colour is given."""
    chosen = dict(local or {})
    transparency = source_video.get("transparency") or {}
    colour = transparency.get("key_color")
    opaque = "transparent" in export.model_fields_set and not export.transparent.enabled
    if transparency.get("mode") != ALPHA_KEY or not colour or opaque or "key_color" in chosen:
        return dict(local) if local else None
    from companion.media import parse_hex_colour

    chosen["key_color"] = list(parse_hex_colour(str(colour)))
    return chosen


def recut_export(source_export: Mapping[str, Any], export: ExportOptions) -> ExportOptions:
    """A re-cut's export with the sides not given taken from the clip's own export: the
    frames stay the size they were made at unless another is asked for."""
    given = export.model_fields_set
    sides = {
        side: int(source_export[side])
        for side in ("output_width", "output_height")
        if side not in given and source_export.get(side)
    }
    return export.model_copy(update=sides) if sides else export


def finishing(
    formats: Iterable[str],
    said: Finishing | None,
    transparent: bool,
    pixel: bool = False,
    service_export: bool = False,
) -> Finishing:
    """The local finishing of an export of formats: what was said is kept; left open, an
    engine pack is trimmed, and held in place when transparent; a loop only when asked;
    pixel art when the picture is (pixel), its frames transparent and the service's own
    export not asked for (an opaque video keeps its background as it is, and the
    service's export is bought as asked). Every switch is decided (none left open); the
    sides and palette said are kept."""
    pack = any(f in ENGINE_PACKS for f in formats)
    said = said.finishing() if said is not None else Finishing()
    # A palette named asks for pixel art unless told otherwise.
    pixel = (pixel and transparent and not service_export) or said.palette is not None
    opened = {"in_place": pack and transparent, "loop": False, "trim": pack, "pixel_art": pixel}
    return said.model_copy(update={**opened, **said.asked()})


def small_frames(
    image: Path, export: ExportOptions, said: tuple[int | None, int | None] | None
) -> tuple[int, int] | None:
    """Frames smaller than the service makes (a side under 64 px): the sides said (16 to
    63 px, which the export cannot carry), the other from the picture's proportions, or
    the picture's own size when nothing was said; None when the service's size is it."""
    width, height = said or (None, None)
    given = export.model_fields_set
    if width is None and height is None and set(SIDES) & given:
        return None  # a size the service makes was asked for
    if width is None and "output_width" in given:
        width = export.output_width
    if height is None and "output_height" in given:
        height = export.output_height
    source = picture(image).size
    if source is None:  # not readable here: the checks before the quote say why
        if width is None and height is None:
            return None
        source = (width or height or 1, height or width or 1)
    size = frame_size(source, width, height, low=LOCAL_MIN_SIDE)
    return size if min(size) < MIN_OUTPUT_SIDE else None


def service_size(frames: tuple[int, int]) -> dict[str, int]:
    """The export sides the service is asked for frames of this size: scaled up, keeping
    proportions, to its lower bound (the local pass scales the clip down to them)."""
    scale = max(1.0, MIN_OUTPUT_SIDE / min(frames))
    return {
        side: min(MAX_OUTPUT_SIDE, max(MIN_OUTPUT_SIDE, round(value * scale)))
        for side, value in zip(SIDES, frames, strict=True)
    }
