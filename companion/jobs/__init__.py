"""The job engine: the typed job request, lifecycle, steps, recovery and scheduling under
the account's limits, names settled before a quote, finding a command's job again.

Other packages import from here. The error family loads at once; the rest loads on first
use, so importing this package costs nothing until a name is asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion import front_door
from companion.jobs.errors import JobFailed, JobsError

if TYPE_CHECKING:
    from companion.jobs.bought import what_is_bought
    from companion.jobs.character import (
        LOOPING,
        BadMove,
        Move,
        MoveJob,
        character_name,
        check_moves,
        formats_refusal,
        job_name,
        move_jobs,
        seam_search,
    )
    from companion.jobs.character import parts as character_parts
    from companion.jobs.defaults import finishing, has_alpha, recut_export, recut_local
    from companion.jobs.engine import Engine
    from companion.jobs.inputs import ImageDamaged, ImageReadError, LocalImage, decode_whole
    from companion.jobs.lifecycle import FINAL, State
    from companion.jobs.models_cache import (
        cached_models,
        chosen_model,
        live_models,
        unmade_length,
    )
    from companion.jobs.move_set import (
        MovePrice,
        SetQuote,
        quote_set,
        set_over_budget,
        submit_set,
    )
    from companion.jobs.naming import names_in, suggestion
    from companion.jobs.provenance import project_files, service_name
    from companion.jobs.remote_books import follow_pending
    from companion.jobs.remote_steps import Budget
    from companion.jobs.request import CharacterPart, JobKind, JobRequest, submit
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
    from companion.jobs.wiring import rewire

# Loaded on first use: name -> (module, the name it has there). No name here is also
# a module's name: importing such a module would put the module where the name should be.
_LAZY = {
    "project_files": ("provenance", "project_files"),
    "service_name": ("provenance", "service_name"),
    "LOOPING": ("character", "LOOPING"),
    "BadMove": ("character", "BadMove"),
    "Move": ("character", "Move"),
    "MoveJob": ("character", "MoveJob"),
    "character_name": ("character", "character_name"),
    "check_moves": ("character", "check_moves"),
    "formats_refusal": ("character", "formats_refusal"),
    "job_name": ("character", "job_name"),
    "move_jobs": ("character", "move_jobs"),
    "seam_search": ("character", "seam_search"),
    "character_parts": ("character", "parts"),
    "MovePrice": ("move_set", "MovePrice"),
    "SetQuote": ("move_set", "SetQuote"),
    "quote_set": ("move_set", "quote_set"),
    "submit_set": ("move_set", "submit_set"),
    "set_over_budget": ("move_set", "set_over_budget"),
    "CharacterPart": ("request", "CharacterPart"),
    "STAGING": ("staging", "STAGING"),
    "StagingRefused": ("staging", "StagingRefused"),
    "job_folder": ("staging", "job_folder"),
    "release_if_unused": ("staging", "release_if_unused"),
    "Engine": ("engine", "Engine"),
    "Budget": ("remote_steps", "Budget"),
    "follow_pending": ("remote_books", "follow_pending"),
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
    "cached_models": ("models_cache", "cached_models"),
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
    "rewire": ("wiring", "rewire"),
    "what_is_bought": ("bought", "what_is_bought"),
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
    "LOOPING",
    "STAGING",
    "Answer",
    "BadMove",
    "Budget",
    "CharacterPart",
    "Engine",
    "ImageDamaged",
    "ImageReadError",
    "JobFailed",
    "JobKind",
    "JobRequest",
    "JobsError",
    "LocalImage",
    "Move",
    "MoveJob",
    "MovePrice",
    "SetQuote",
    "StagingRefused",
    "State",
    "already_made",
    "as_recut",
    "cached_models",
    "character_name",
    "character_parts",
    "check_moves",
    "chosen_model",
    "decode_whole",
    "finishing",
    "follow_pending",
    "formats_refusal",
    "generation_answer",
    "has_alpha",
    "job_folder",
    "job_name",
    "live_models",
    "made_before",
    "move_jobs",
    "names_in",
    "open_account",
    "paid_not_installed",
    "project_files",
    "quote_set",
    "recut_export",
    "recut_local",
    "release_if_unused",
    "rewire",
    "seam_search",
    "service_name",
    "set_over_budget",
    "settle",
    "submit",
    "submit_set",
    "suggestion",
    "to_reinstall",
    "unfinished",
    "unmade_length",
    "waits_for_generation",
    "what_is_bought",
]
