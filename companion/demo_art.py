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
