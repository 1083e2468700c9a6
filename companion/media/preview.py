"""The labelled contact sheet of spec 4.7: one cell per requested instant, in request
order, each showing the frame actually displayed then, no side over max_frame_size."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from av.video.reformatter import VideoReformatter
from PIL import Image, ImageDraw, ImageFont

from companion.media.errors import MediaError
from companion.media.frames import Fit
from companion.media.source.decode import SamplePicker, SourceFrame, iter_source_frames
from companion.media.source.sampling import EPSILON
from companion.media.source.video_info import probe

LABEL_HEIGHT = 18
GAP = 4


@dataclass(frozen=True)
class PreviewCellInfo:
    index: int
    x: int
    y: int
    width: int
    height: int
    requested_time: float
    source_time: float


@dataclass(frozen=True)
class ContactSheet:
    path: Path
    width: int
    height: int
    cells: list[PreviewCellInfo]


def build_contact_sheet(
    source: Path, out: Path, timestamps: list[float], max_frame_size: int = 256
) -> ContactSheet:
    if not 1 <= len(timestamps) <= 12:
        raise MediaError("give 1 to 12 timestamps")
    info = probe(source)
    for t in timestamps:
        if t < 0 or t >= info.duration - EPSILON:
            raise MediaError(f"timestamp {t:g} s is outside the video (0 to {info.duration:.3f} s)")
    fit = Fit.inside(info.width, info.height, max_frame_size, max_frame_size)
    thumb_w, thumb_h = fit.width, fit.height
    columns = min(len(timestamps), math.ceil(math.sqrt(len(timestamps))))
    rows = math.ceil(len(timestamps) / columns)
    cell_h = thumb_h + LABEL_HEIGHT
    width = columns * thumb_w + (columns + 1) * GAP
    height = rows * cell_h + (rows + 1) * GAP
    sheet = Image.new("RGB", (width, height), (24, 24, 28))
    draw = ImageDraw.Draw(sheet)
    font = ImageFont.load_default()

    # Decode once in time order; place each thumbnail at its request-order cell.
    order = sorted(range(len(timestamps)), key=lambda i: timestamps[i])
    picker = SamplePicker([timestamps[i] for i in order])
    cells: dict[int, PreviewCellInfo] = {}
    scaler = VideoReformatter()

    def place(matches: list[tuple[int, SourceFrame]]) -> None:
        for sorted_index, chosen in matches:
            request_index = order[sorted_index]
            column, row = request_index % columns, request_index // columns
            x = GAP + column * (thumb_w + GAP)
            y = GAP + row * (cell_h + GAP)
            frame = scaler.reformat(chosen.frame, width=thumb_w, height=thumb_h, format="rgb24")
            sheet.paste(Image.fromarray(frame.to_ndarray(format="rgb24")), (x, y))
            label = f"#{request_index}  {timestamps[request_index]:.2f}s"
            draw.text((x + 3, y + thumb_h + 3), label, fill=(230, 230, 230), font=font)
            cells[request_index] = PreviewCellInfo(
                request_index,
                x,
                y,
                thumb_w,
                thumb_h,
                timestamps[request_index],
                round(chosen.time, 6),
            )

    for current in iter_source_frames(source, 0.0, info.duration, shown_at=timestamps):
        place(picker.push(current))
        if picker.done:
            break
    place(picker.finish())
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out, "PNG")
    return ContactSheet(out, width, height, [cells[i] for i in range(len(timestamps))])
