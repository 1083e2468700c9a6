"""A small character drawn in code, so the demo and tests need no binary assets."""

from __future__ import annotations

from PIL import Image, ImageDraw


def draw_character(size: int = 256) -> Image.Image:
    """A hooded adventurer on a transparent background, bottom-centred."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    s = size / 256

    def box(x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        return (x0 * s, y0 * s, x1 * s, y1 * s)

    draw.rounded_rectangle(box(92, 200, 118, 246), 6 * s, fill=(60, 52, 90, 255))  # legs
    draw.rounded_rectangle(box(138, 200, 164, 246), 6 * s, fill=(60, 52, 90, 255))
    draw.rounded_rectangle(box(78, 110, 178, 212), 18 * s, fill=(196, 70, 54, 255))  # body
    draw.rectangle(box(78, 178, 178, 190), fill=(120, 82, 40, 255))  # belt
    draw.ellipse(box(88, 36, 168, 120), fill=(240, 200, 160, 255))  # head
    draw.pieslice(box(80, 26, 176, 126), 180, 360, fill=(150, 46, 40, 255))  # hood
    draw.ellipse(box(108, 74, 118, 86), fill=(30, 30, 40, 255))  # eyes
    draw.ellipse(box(138, 74, 148, 86), fill=(30, 30, 40, 255))
    draw.polygon(
        [(178 * s, 130 * s), (222 * s, 92 * s), (228 * s, 100 * s), (186 * s, 142 * s)],
        fill=(200, 210, 220, 255),
    )  # sword
    return image


def draw_slime(size: int = 128) -> Image.Image:
    """A green slime with a highlight, sitting on the bottom edge."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    s = size / 128
    draw.pieslice((14 * s, 40 * s, 114 * s, 196 * s), 180, 360, fill=(70, 180, 90, 255))
    draw.rectangle((14 * s, 117 * s, 114 * s, 124 * s), fill=(50, 140, 70, 255))  # base
    draw.ellipse((34 * s, 58 * s, 52 * s, 72 * s), fill=(200, 250, 210, 255))  # highlight
    draw.ellipse((48 * s, 84 * s, 58 * s, 96 * s), fill=(20, 40, 30, 255))  # eyes
    draw.ellipse((72 * s, 84 * s, 82 * s, 96 * s), fill=(20, 40, 30, 255))
    return image


def draw_coin(size: int = 64) -> Image.Image:
    """A gold coin, centred: the kind of prop that spins."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    s = size / 64
    draw.ellipse((6 * s, 6 * s, 58 * s, 58 * s), fill=(200, 150, 30, 255))
    draw.ellipse((12 * s, 12 * s, 52 * s, 52 * s), fill=(245, 200, 60, 255))
    draw.rectangle((29 * s, 20 * s, 35 * s, 44 * s), fill=(200, 150, 30, 255))  # the mark
    return image


SAMPLE_ART = {"hero": (draw_character, 128), "slime": (draw_slime, 128), "coin": (draw_coin, 64)}
