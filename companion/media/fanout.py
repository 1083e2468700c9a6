"""One decode, every writer: frames are decoded and scaled on the calling thread, keyed
and letterboxed on a small pool, and handed in order to each writer's own thread."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from companion.media.formats.common import RGBA
from companion.media.frames import FrameShaper
from companion.media.pipeline import ThreadedSink
from companion.media.source.decode import SamplePicker, SourceFrame, iter_source_frames
from companion.media.source.sampling import SamplePlan
from companion.media.spec import ExportOutput, FrameSink, Progress

Writer = ThreadedSink[tuple[int, RGBA], list[ExportOutput]]
# Threads keying and letterboxing frames while the main thread decodes and scales. Two
# match the cores; more in flight than that only holds more frames.
SHAPERS = 2
# Fewer output frames than a half of the decoded ones: decoding dominates the export.
SPARSE_SAMPLING = 2


def decode_into(
    source: Path,
    plan: SamplePlan,
    shaper: FrameShaper,
    sinks: list[Writer],
    clip: ThreadedSink[SourceFrame, list[ExportOutput]] | None,
    progress: Progress | None,
    source_fps: float,
) -> list[ExportOutput]:
    # When most decoded frames become output frames (or feed the clip), the writers
    # keep both cores busy and the decoder runs alone on this thread; when most are
    # passed over, decoding is the work, and it gets the decoder's own threads.
    decoded = source_fps * plan.duration
    decode_threads = clip is None and plan.count * SPARSE_SAMPLING < decoded
    failure: BaseException | None = None
    try:
        with ThreadPoolExecutor(SHAPERS, thread_name_prefix="shape") as pool:
            _stream_frames(source, plan, shaper, pool, sinks, clip, progress, decode_threads)
    except BaseException as exc:
        failure = exc
    # Always stop the writer threads; the first error (decoder's or a writer's) wins.
    everyone: list[Writer | ThreadedSink[SourceFrame, list[ExportOutput]]] = [*sinks]
    if clip is not None:
        everyone.append(clip)
    for writer in everyone:  # all told first, so they close at the same time
        writer.finish()
    outputs: list[ExportOutput] = []
    for writer in everyone:
        try:
            writer.join()
            if failure is None:
                outputs += writer.result()
        except BaseException as exc:
            failure = failure or exc
    if failure is not None:
        raise failure
    return outputs


def adder(writer: FrameSink) -> Callable[[tuple[int, RGBA]], None]:
    return lambda item: writer.add(*item)


def _stream_frames(
    source: Path,
    plan: SamplePlan,
    shaper: FrameShaper,
    pool: ThreadPoolExecutor,
    sinks: list[Writer],
    clip: ThreadedSink[SourceFrame, list[ExportOutput]] | None,
    progress: Progress | None,
    decode_threads: bool,
) -> None:
    picker = SamplePicker(plan.times)
    shaped_serial = -1
    shaped_count = 0
    shaped: Future[RGBA] | None = None
    # Shaped frames in output order, handed on when the oldest is ready; at most
    # SHAPERS + 1 are in flight, so memory does not grow with the frame count.
    pending: deque[tuple[int, Future[RGBA]]] = deque()

    def hand_on(limit: int) -> None:
        while len(pending) > limit:
            index, future = pending.popleft()
            frame = future.result()
            for sink in sinks:
                sink.put((index, frame))
            if progress is not None:
                progress((index + 1) / plan.count)

    def deliver(matches: list[tuple[int, SourceFrame]]) -> None:
        """(output index, the source frame shown at its instant)."""
        nonlocal shaped_serial, shaped, shaped_count
        for index, current in matches:
            if shaped is None or current.serial != shaped_serial:
                # A frame shown at several instants is shaped once. Scaling stays on
                # this thread (one scaler); keying and letterboxing go to the pool.
                shaped = pool.submit(shaper.finish, shaper.scale(current.frame), shaped_count)
                shaped_serial = current.serial
                shaped_count += 1
            pending.append((index, shaped))
            hand_on(SHAPERS)

    # The clip needs every frame; the frame writers only those shown at the instants.
    shown_at = None if clip is not None else plan.times
    frames = iter_source_frames(
        source, plan.start, plan.end, threads=decode_threads, shown_at=shown_at
    )
    for current in frames:
        if clip is not None:
            clip.put(current)
        deliver(picker.push(current))
        if picker.done and clip is None:
            break
    deliver(picker.finish())
    hand_on(0)
