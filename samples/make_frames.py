"""Draw the samples' source frames into both sample projects (run from the repo root):

    .venv/bin/python samples/make_frames.py

The pictures come from companion.media.demo_art, so the samples carry no art from elsewhere.
Unity's copies get a .meta with a guid derived from the name, so Unity never invents one."""

from __future__ import annotations

from pathlib import Path

from companion.media.demo_art import SAMPLE_ART
from companion.media.formats.common import stable_hex

HERE = Path(__file__).resolve().parent
GODOT_ART = HERE / "godot" / "art"
UNITY_ART = HERE / "unity" / "Assets" / "Art"

TEXTURE_META = """fileFormatVersion: 2
guid: {guid}
TextureImporter:
  serializedVersion: 12
  mipmaps:
    enableMipMap: 0
  textureType: 8
  spriteMode: 1
  alphaIsTransparency: 1
  spritePixelsToUnits: 100
  textureSettings:
    filterMode: 1
  userData:
  assetBundleName:
  assetBundleVariant:
"""


def main() -> None:
    for folder in (GODOT_ART, UNITY_ART):
        folder.mkdir(parents=True, exist_ok=True)
    for name, (draw, size) in SAMPLE_ART.items():
        image = draw(size)
        image.save(GODOT_ART / f"{name}.png")
        image.save(UNITY_ART / f"{name}.png")
        meta = TEXTURE_META.format(guid=stable_hex("sample-art", name))
        (UNITY_ART / f"{name}.png.meta").write_text(meta)
        print(f"{name}.png  {size}x{size}")


if __name__ == "__main__":
    main()
