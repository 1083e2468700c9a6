"""Unity: sliced-sprite texture .meta files, a sprite flipbook AnimationClip, and the
.unitypackage that carries them (gzip tar, one folder per asset named by its guid).

Guids are derived from where each asset lands in the project (the Unity folder, which
holds the animation's name, and the file name): re-exporting to the same place keeps every
guid and the project's references survive, while an animation of the same name in another
folder gets guids of its own. spriteIDs and internalIDs only need to be unique within
their texture, so they come from the frame names."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from companion.media.formats.common import (
    Animation,
    FrameRect,
    SheetPage,
    stable_hex,
    stable_int64,
    write_tar_gz,
)
from companion.media.pixel.art import grid_of

ALIGNMENT = {
    "center": 0,
    "top_left": 1,
    "top_center": 2,
    "top_right": 3,
    "left_center": 4,
    "right_center": 5,
    "bottom_left": 6,
    "bottom_center": 7,
    "bottom_right": 8,
}
CUSTOM = 9  # SpriteAlignment.Custom: the pivot as given
DEFAULT_UNITY_DIR = "Assets/Animations"
# The service's pixels per unit when none is asked for. Pixel art asked with it gets
# ART_PIXELS_PER_UNIT pixels of its art a unit instead, whatever size the art is drawn
# at, so a tile of 16 art pixels is one unit.
DEFAULT_PIXELS_PER_UNIT = 100.0
ART_PIXELS_PER_UNIT = 16


def pixels_per_unit(animation: Animation) -> float:
    """What spritePixelsToUnits says: the animation's own, or for pixel art asked with
    the default, ART_PIXELS_PER_UNIT art pixels a unit (one art pixel's side measured on
    the first frame as a picture's grid is; 1 for art on no whole-pixel grid)."""
    if not animation.pixel_art or animation.pixels_per_unit != DEFAULT_PIXELS_PER_UNIT:
        return animation.pixels_per_unit
    first = animation.frames[0] if animation.pages else None
    if first is None:
        return float(ART_PIXELS_PER_UNIT)
    box = (first.x, first.y, first.x + first.width, first.y + first.height)
    with Image.open(animation.pages[first.page].path) as sheet:
        frame = np.asarray(sheet.crop(box).convert("RGBA"))
    shown = np.where(frame[..., 3:] == 0, 0, frame)  # every clear pixel one colour
    return float(ART_PIXELS_PER_UNIT * grid_of(shown))


def trimmed_pivot(rect: FrameRect, pivot_x: float, pivot_y_up: float) -> tuple[float, float]:
    """The whole frame's pivot (normalised, y up) in the cut's own normalised space: a
    trimmed sprite then sits where the whole frame would, so nothing jitters."""
    source_w, source_h = rect.source_size
    cut_bottom = source_h - rect.offset_y - rect.height  # from the frame's bottom edge
    return (
        round((pivot_x * source_w - rect.offset_x) / rect.width, 6),
        round((pivot_y_up * source_h - cut_bottom) / rect.height, 6),
    )


def default_place(name: str, unity_dir: str = DEFAULT_UNITY_DIR) -> str:
    """The Unity folder an animation lands in when nothing else is said."""
    return f"{unity_dir.rstrip('/')}/{name}"


def texture_guid(place: str, page: SheetPage) -> str:
    return stable_hex("unity-asset", f"{place.rstrip('/')}/{page.path.name}")


def clip_guid(animation: Animation, place: str) -> str:
    return stable_hex("unity-asset", f"{place.rstrip('/')}/{animation.name}.anim")


def sprite_internal_id(animation: Animation, frame_name: str) -> int:
    return stable_int64("unity-sprite", animation.name, frame_name)


def texture_meta(
    animation: Animation, page: SheetPage, place: str, per_unit: float | None = None
) -> str:
    """A sheet page's meta; per_unit is pixels_per_unit(animation), given when known
    (it reads a frame of pixel art)."""
    per_unit = pixels_per_unit(animation) if per_unit is None else per_unit
    pivot_x, pivot_y_down = animation.pivot_xy_down
    pivot_y = 1.0 - pivot_y_down  # Unity measures pivots from the bottom
    sprites: list[str] = []
    table: list[str] = []
    for rect in page.frames:
        internal = sprite_internal_id(animation, rect.name)
        alignment, (sprite_x, sprite_y) = ALIGNMENT[animation.pivot], (pivot_x, pivot_y)
        if rect.trimmed:  # the same point of the whole frame, measured on the cut
            alignment, (sprite_x, sprite_y) = CUSTOM, trimmed_pivot(rect, pivot_x, pivot_y)
        sprites.append(
            f"""    - serializedVersion: 2
      name: {rect.name}
      rect:
        serializedVersion: 2
        x: {rect.x}
        y: {page.height - rect.y - rect.height}
        width: {rect.width}
        height: {rect.height}
      alignment: {alignment}
      pivot: {{x: {sprite_x:g}, y: {sprite_y:g}}}
      border: {{x: 0, y: 0, z: 0, w: 0}}
      customData:
      outline: []
      physicsShape: []
      tessellationDetail: -1
      bones: []
      spriteID: {stable_hex("unity-sprite-id", animation.name, rect.name)}
      internalID: {internal}
      vertices: []
      indices:
      edges: []
      weights: []"""
        )
        table.append(f"      {rect.name}: {internal}")
    return f"""fileFormatVersion: 2
guid: {texture_guid(place, page)}
TextureImporter:
  internalIDToNameTable: []
  externalObjects: {{}}
  serializedVersion: 13
  mipmaps:
    mipMapMode: 0
    enableMipMap: 0
    sRGBTexture: 1
    linearTexture: 0
    fadeOut: 0
    borderMipMap: 0
    mipMapsPreserveCoverage: 0
    alphaTestReferenceValue: 0.5
    mipMapFadeDistanceStart: 1
    mipMapFadeDistanceEnd: 3
  bumpmap:
    convertToNormalMap: 0
    externalNormalMap: 0
    heightScale: 0.25
    normalMapFilter: 0
    flipGreenChannel: 0
  isReadable: 0
  streamingMipmaps: 0
  streamingMipmapsPriority: 0
  vTOnly: 0
  ignoreMipmapLimit: 0
  grayScaleToAlpha: 0
  generateCubemap: 6
  cubemapConvolution: 0
  seamlessCubemap: 0
  textureFormat: 1
  maxTextureSize: {max(2048, _power_of_two(max(page.width, page.height)))}
  textureSettings:
    serializedVersion: 2
    filterMode: {0 if animation.pixel_art else 1}
    aniso: 1
    mipBias: 0
    wrapU: 1
    wrapV: 1
    wrapW: 1
  nPOTScale: 0
  lightmap: 0
  compressionQuality: 50
  spriteMode: 2
  spriteExtrude: 1
  spriteMeshType: 0
  alignment: {ALIGNMENT[animation.pivot]}
  spritePivot: {{x: {pivot_x:g}, y: {pivot_y:g}}}
  spritePixelsToUnits: {per_unit:g}
  spriteBorder: {{x: 0, y: 0, z: 0, w: 0}}
  spriteGenerateFallbackPhysicsShape: 1
  alphaUsage: 1
  alphaIsTransparency: 1
  spriteTessellationDetail: -1
  textureType: 8
  textureShape: 1
  singleChannelComponent: 0
  flipbookRows: 1
  flipbookColumns: 1
  maxTextureSizeSet: 0
  compressionQualitySet: 0
  textureFormatSet: 0
  ignorePngGamma: 0
  applyGammaDecoding: 0
  swizzle: 50462976
  cookieLightType: 0
  platformSettings:
  - serializedVersion: 3
    buildTarget: DefaultTexturePlatform
    maxTextureSize: {max(2048, _power_of_two(max(page.width, page.height)))}
    resizeAlgorithm: 0
    textureFormat: -1
    textureCompression: 0
    compressionQuality: 50
    crunchedCompression: 0
    allowsAlphaSplitting: 0
    overridden: 0
    ignorePlatformSupport: 0
    androidETC2FallbackOverride: 0
    forceMaximumCompressionQuality_BC6H_BC7: 0
  spriteSheet:
    serializedVersion: 2
    sprites:
{chr(10).join(sprites)}
    outline: []
    physicsShape: []
    bones: []
    spriteID: {stable_hex("unity-sheet-id", animation.name, str(page.index))}
    internalID: 0
    vertices: []
    indices:
    edges: []
    weights: []
    secondaryTextures: []
    nameFileIdTable:
{chr(10).join(table)}
  mipmapLimitGroupName:
  pSDRemoveMatte: 0
  userData:
  assetBundleName:
  assetBundleVariant:
"""


def _power_of_two(value: int) -> int:
    size = 1
    while size < value:
        size *= 2
    return size


def animation_clip(animation: Animation, place: str) -> str:
    guids = {page.index: texture_guid(place, page) for page in animation.pages}
    keys: list[str] = []
    mapping: list[str] = []
    time = 0.0
    for rect in animation.frames:
        ref = (
            f"{{fileID: {sprite_internal_id(animation, rect.name)}, "
            f"guid: {guids[rect.page]}, type: 3}}"
        )
        keys.append(f"    - time: {time:.6g}\n      value: {ref}")
        mapping.append(f"    - {ref}")
        time += rect.duration
    stop = animation.total_duration
    return f"""%YAML 1.1
%TAG !u! tag:unity3d.com,2011:
--- !u!74 &7400000
AnimationClip:
  m_ObjectHideFlags: 0
  m_CorrespondingSourceObject: {{fileID: 0}}
  m_PrefabInstance: {{fileID: 0}}
  m_PrefabAsset: {{fileID: 0}}
  m_Name: {animation.name}
  serializedVersion: 7
  m_Legacy: 0
  m_Compressed: 0
  m_UseHighQualityCurve: 1
  m_RotationCurves: []
  m_CompressedRotationCurves: []
  m_EulerCurves: []
  m_PositionCurves: []
  m_ScaleCurves: []
  m_FloatCurves: []
  m_PPtrCurves:
  - curve:
{chr(10).join(keys)}
    attribute: m_Sprite
    path:
    classID: 212
    script: {{fileID: 0}}
    flags: 2
  m_SampleRate: {animation.fps:g}
  m_WrapMode: 0
  m_Bounds:
    m_Center: {{x: 0, y: 0, z: 0}}
    m_Extent: {{x: 0, y: 0, z: 0}}
  m_ClipBindingConstant:
    genericBindings:
    - serializedVersion: 2
      path: 0
      attribute: 0
      script: {{fileID: 0}}
      typeID: 212
      customType: 23
      isPPtrCurve: 1
      isIntCurve: 0
      isSerializeReferenceCurve: 0
    pptrCurveMapping:
{chr(10).join(mapping)}
  m_AnimationClipSettings:
    serializedVersion: 2
    m_AdditiveReferencePoseClip: {{fileID: 0}}
    m_AdditiveReferencePoseTime: 0
    m_StartTime: 0
    m_StopTime: {stop:.6g}
    m_OrientationOffsetY: 0
    m_Level: 0
    m_CycleOffset: 0
    m_HasAdditiveReferencePose: 0
    m_LoopTime: 1
    m_LoopBlend: 0
    m_LoopBlendOrientation: 0
    m_LoopBlendPositionY: 0
    m_LoopBlendPositionXZ: 0
    m_KeepOriginalOrientation: 0
    m_KeepOriginalPositionY: 1
    m_KeepOriginalPositionXZ: 0
    m_HeightFromFeet: 0
    m_Mirror: 0
  m_EditorCurves: []
  m_EulerEditorCurves: []
  m_HasGenericRootTransform: 0
  m_HasMotionFloatCurves: 0
  m_Events: []
"""


def clip_meta(animation: Animation, place: str) -> str:
    return f"""fileFormatVersion: 2
guid: {clip_guid(animation, place)}
NativeFormatImporter:
  externalObjects: {{}}
  mainObjectFileID: 7400000
  userData:
  assetBundleName:
  assetBundleVariant:
"""


def write_unity_metas(
    animation: Animation, folder: Path, unity_dir: str = DEFAULT_UNITY_DIR
) -> list[Path]:
    place = default_place(animation.name, unity_dir)
    per_unit = pixels_per_unit(animation)
    paths = []
    for page in animation.pages:
        path = folder / f"{page.path.name}.meta"
        path.write_text(texture_meta(animation, page, place, per_unit))
        paths.append(path)
    return paths


def write_unity_package(
    animation: Animation, folder: Path, unity_dir: str = DEFAULT_UNITY_DIR
) -> Path:
    base = default_place(animation.name, unity_dir)
    per_unit = pixels_per_unit(animation)
    members: list[tuple[str, bytes | Path]] = []
    for page in animation.pages:
        guid = texture_guid(base, page)
        # The .meta goes in with its asset, so Unity never invents its own guid.
        members += [
            (f"{guid}/asset", page.path),
            (f"{guid}/asset.meta", texture_meta(animation, page, base, per_unit).encode()),
            (f"{guid}/pathname", f"{base}/{page.path.name}".encode()),
        ]
    guid = clip_guid(animation, base)
    members += [
        (f"{guid}/asset", animation_clip(animation, base).encode()),
        (f"{guid}/asset.meta", clip_meta(animation, base).encode()),
        (f"{guid}/pathname", f"{base}/{animation.name}.anim".encode()),
    ]
    path = folder / f"{animation.name}.unitypackage"
    write_tar_gz(path, members)
    return path
