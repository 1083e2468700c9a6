"""What a paid job buys at the service: a video generation, its outputs exported here
from the kept clip, unless the service's own export is asked for (a one-click animation,
installed as the service made it). Paying for an export that is thrown away would spend
credits for nothing, and a service need not return the generated video of a one-click
unasked (spec 2.8), so a job made here buys the video alone and keeps it, whatever the
service returns.

The kind is read from the store alone: the create body on disk says what was sent (a
one-click's carries an export), so a job created before a change of rule resumes as it
was bought; before the body is written, its request decides."""

from __future__ import annotations

import json

from companion.api.schema import AnimationCreate, VideoGenerationCreate, VideoGenerationQuote
from companion.jobs.ask.request import ONE_CLICK, VIDEO_GENERATION, JobRequest
from companion.store import Job

# The fields of a one-click body that are a video generation's (spec 4.5).
GENERATION_FIELDS = frozenset({"input", "prompt", "negative_prompt", "video", "metadata"})


def bought(job: Job) -> str:
    """The task kind job buys, or bought: VIDEO_GENERATION or ONE_CLICK."""
    if job.body:
        return ONE_CLICK if "export" in json.loads(job.body) else VIDEO_GENERATION
    return JobRequest.of(job.request).buys


def generation_body(body: AnimationCreate) -> VideoGenerationCreate:
    """The video generation of a one-click body: its generation fields alone."""
    return VideoGenerationCreate.model_validate(
        body.model_dump(mode="json", include=set(GENERATION_FIELDS))
    )


def generation_quote(body: AnimationCreate) -> VideoGenerationQuote:
    """What the price of a video generation depends on (spec 4.4)."""
    return VideoGenerationQuote(
        has_last_frame=body.input.last_frame is not None,
        reference_image_count=len(body.input.reference_images),
        video=body.video,
    )


def made_here(job: Job) -> bool:
    """job's outputs are exported here from its kept clip: it bought the video alone, or
    (a one-click bought before this rule) it asked for local finishing or small frames."""
    return bought(job) == VIDEO_GENERATION or JobRequest.of(job.request).finished_here


def what_is_bought(buys: str, credits: int) -> str:
    """The quote said as what it buys, in a few words."""
    if buys == VIDEO_GENERATION:
        return f"a video generation ({credits} credits), exported here"
    return f"a one-click animation ({credits} credits)"
