"""The job engine: the typed job request, lifecycle, steps, recovery and scheduling under
the account's limits, names settled before a quote, finding a command's job again.

Other packages import from here. The error family loads at once; the rest loads on first
use, so importing this package costs nothing until a name is asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion import front_door
from companion.jobs.errors import JobFailed, JobsError

if TYPE_CHECKING:
    from companion.jobs.defaults import finishing, has_alpha, recut_export, recut_local
    from companion.jobs.engine import Engine
    from companion.jobs.inputs import ImageDamaged, ImageReadError, LocalImage, decode_whole
    from companion.jobs.lifecycle import FINAL, State
    from companion.jobs.models_cache import chosen_model, live_models, unmade_length
    from companion.jobs.naming import names_in, suggestion
    from companion.jobs.remote_steps import Budget
    from companion.jobs.request import JobKind, JobRequest, submit
    from companion.jobs.resume import (
        already_made,
        made_before,
        paid_not_installed,
        to_reinstall,
        unfinished,
    )
    from companion.jobs.reuse import (
        Answer,
        as_recut,
        generation_answer,
        settle,
        waits_for_generation,
    )
    from companion.jobs.staging import STAGING, StagingRefused, job_folder, release_if_unused
    from companion.jobs.team import open_account

# Loaded on first use: name -> (module, the name it has there). No name here is also
# a module's name: importing such a module would put the module where the name should be.
_LAZY = {
    "STAGING": ("staging", "STAGING"),
    "StagingRefused": ("staging", "StagingRefused"),
    "job_folder": ("staging", "job_folder"),
    "release_if_unused": ("staging", "release_if_unused"),
    "Engine": ("engine", "Engine"),
    "Budget": ("remote_steps", "Budget"),
    "JobKind": ("request", "JobKind"),
    "JobRequest": ("request", "JobRequest"),
    "submit": ("request", "submit"),
    "FINAL": ("lifecycle", "FINAL"),
    "State": ("lifecycle", "State"),
    "ImageReadError": ("inputs", "ImageReadError"),
    "ImageDamaged": ("inputs", "ImageDamaged"),
    "decode_whole": ("inputs", "decode_whole"),
    "LocalImage": ("inputs", "LocalImage"),
    "live_models": ("models_cache", "live_models"),
    "chosen_model": ("models_cache", "chosen_model"),
    "unmade_length": ("models_cache", "unmade_length"),
    "names_in": ("naming", "names_in"),
    "suggestion": ("naming", "suggestion"),
    "already_made": ("resume", "already_made"),
    "made_before": ("resume", "made_before"),
    "unfinished": ("resume", "unfinished"),
    "to_reinstall": ("resume", "to_reinstall"),
    "paid_not_installed": ("resume", "paid_not_installed"),
    "open_account": ("team", "open_account"),
    "recut_local": ("defaults", "recut_local"),
    "finishing": ("defaults", "finishing"),
    "recut_export": ("defaults", "recut_export"),
    "has_alpha": ("defaults", "has_alpha"),
    "Answer": ("reuse", "Answer"),
    "as_recut": ("reuse", "as_recut"),
    "generation_answer": ("reuse", "generation_answer"),
    "settle": ("reuse", "settle"),
    "waits_for_generation": ("reuse", "waits_for_generation"),
}


__getattr__ = front_door(__name__, globals(), _LAZY)


__all__ = [
    "FINAL",
    "STAGING",
    "Answer",
    "Budget",
    "Engine",
    "ImageDamaged",
    "ImageReadError",
    "JobFailed",
    "JobKind",
    "JobRequest",
    "JobsError",
    "LocalImage",
    "StagingRefused",
    "State",
    "already_made",
    "as_recut",
    "chosen_model",
    "decode_whole",
    "finishing",
    "generation_answer",
    "has_alpha",
    "job_folder",
    "live_models",
    "made_before",
    "names_in",
    "open_account",
    "paid_not_installed",
    "recut_export",
    "recut_local",
    "release_if_unused",
    "settle",
    "submit",
    "suggestion",
    "to_reinstall",
    "unfinished",
    "unmade_length",
    "waits_for_generation",
]
