"""The job engine: the typed job request, lifecycle, steps, recovery and scheduling under
the account's limits, names settled before a quote, finding a command's job again.

Other packages import from here. The error family loads at once; the rest loads on first
use, so importing this package costs nothing until a name is asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion import front_door
from companion.jobs.errors import (
    BadMove,
    ImageDamaged,
    ImageReadError,
    JobFailed,
    JobsError,
    StagingRefused,
)

if TYPE_CHECKING:
    from companion.jobs.ask.defaults import (
        finishing,
        has_alpha,
        pixel_facts,
        recut_export,
        recut_local,
    )
    from companion.jobs.ask.finishing import Finishing
    from companion.jobs.ask.inputs import LocalImage, decode_whole
    from companion.jobs.ask.naming import names_in, suggestion
    from companion.jobs.ask.request import (
        AnimationAsk,
        CharacterPart,
        JobKind,
        JobRequest,
        Picture,
        Prompt,
        submit,
    )
    from companion.jobs.characters.move_set import (
        MovePrice,
        SetQuote,
        quote_set,
        set_over_budget,
        submit_set,
    )
    from companion.jobs.characters.moves import (
        LOOPING,
        Move,
        MoveJob,
        character_name,
        check_moves,
        formats_refusal,
        job_name,
        move_jobs,
        seam_search,
    )
    from companion.jobs.characters.moves import parts as character_parts
    from companion.jobs.characters.wiring import rewire
    from companion.jobs.engine import Engine
    from companion.jobs.landing.staging import STAGING, job_folder, release_if_unused
    from companion.jobs.lifecycle import FINAL, State
    from companion.jobs.provenance import project_files, service_name
    from companion.jobs.remote.books import follow_pending
    from companion.jobs.remote.bought import what_is_bought
    from companion.jobs.remote.models_cache import (
        cached_models,
        chosen_model,
        live_models,
        unmade_length,
    )
    from companion.jobs.remote.reuse import (
        Answer,
        as_recut,
        generation_answer,
        settle,
        waits_for_generation,
    )
    from companion.jobs.remote.steps import Budget
    from companion.jobs.resume import (
        already_made,
        made_before,
        paid_not_installed,
        to_reinstall,
        unfinished,
    )
    from companion.jobs.team import open_account
    from companion.jobs.view import JobView, OutputView, has_preview_source, job_view

# Loaded on first use: name -> (module, the name it has there). No name here is also
# a module's name: importing such a module would put the module where the name should be.
_LAZY = {
    "project_files": ("provenance", "project_files"),
    "service_name": ("provenance", "service_name"),
    "LOOPING": ("characters.moves", "LOOPING"),
    "Move": ("characters.moves", "Move"),
    "MoveJob": ("characters.moves", "MoveJob"),
    "character_name": ("characters.moves", "character_name"),
    "check_moves": ("characters.moves", "check_moves"),
    "formats_refusal": ("characters.moves", "formats_refusal"),
    "job_name": ("characters.moves", "job_name"),
    "move_jobs": ("characters.moves", "move_jobs"),
    "seam_search": ("characters.moves", "seam_search"),
    "character_parts": ("characters.moves", "parts"),
    "MovePrice": ("characters.move_set", "MovePrice"),
    "SetQuote": ("characters.move_set", "SetQuote"),
    "quote_set": ("characters.move_set", "quote_set"),
    "submit_set": ("characters.move_set", "submit_set"),
    "set_over_budget": ("characters.move_set", "set_over_budget"),
    "AnimationAsk": ("ask.request", "AnimationAsk"),
    "CharacterPart": ("ask.request", "CharacterPart"),
    "Picture": ("ask.request", "Picture"),
    "Prompt": ("ask.request", "Prompt"),
    "STAGING": ("landing.staging", "STAGING"),
    "job_folder": ("landing.staging", "job_folder"),
    "release_if_unused": ("landing.staging", "release_if_unused"),
    "Engine": ("engine", "Engine"),
    "Budget": ("remote.steps", "Budget"),
    "follow_pending": ("remote.books", "follow_pending"),
    "JobKind": ("ask.request", "JobKind"),
    "JobRequest": ("ask.request", "JobRequest"),
    "submit": ("ask.request", "submit"),
    "FINAL": ("lifecycle", "FINAL"),
    "State": ("lifecycle", "State"),
    "decode_whole": ("ask.inputs", "decode_whole"),
    "LocalImage": ("ask.inputs", "LocalImage"),
    "live_models": ("remote.models_cache", "live_models"),
    "cached_models": ("remote.models_cache", "cached_models"),
    "chosen_model": ("remote.models_cache", "chosen_model"),
    "unmade_length": ("remote.models_cache", "unmade_length"),
    "names_in": ("ask.naming", "names_in"),
    "suggestion": ("ask.naming", "suggestion"),
    "already_made": ("resume", "already_made"),
    "made_before": ("resume", "made_before"),
    "unfinished": ("resume", "unfinished"),
    "to_reinstall": ("resume", "to_reinstall"),
    "paid_not_installed": ("resume", "paid_not_installed"),
    "open_account": ("team", "open_account"),
    "rewire": ("characters.wiring", "rewire"),
    "what_is_bought": ("remote.bought", "what_is_bought"),
    "recut_local": ("ask.defaults", "recut_local"),
    "pixel_facts": ("ask.defaults", "pixel_facts"),
    "finishing": ("ask.defaults", "finishing"),
    "Finishing": ("ask.finishing", "Finishing"),
    "recut_export": ("ask.defaults", "recut_export"),
    "has_alpha": ("ask.defaults", "has_alpha"),
    "Answer": ("remote.reuse", "Answer"),
    "as_recut": ("remote.reuse", "as_recut"),
    "generation_answer": ("remote.reuse", "generation_answer"),
    "settle": ("remote.reuse", "settle"),
    "waits_for_generation": ("remote.reuse", "waits_for_generation"),
    "JobView": ("view", "JobView"),
    "OutputView": ("view", "OutputView"),
    "has_preview_source": ("view", "has_preview_source"),
    "job_view": ("view", "job_view"),
}


__getattr__ = front_door(__name__, globals(), _LAZY)


__all__ = [
    "FINAL",
    "LOOPING",
    "STAGING",
    "AnimationAsk",
    "Answer",
    "BadMove",
    "Budget",
    "CharacterPart",
    "Engine",
    "Finishing",
    "ImageDamaged",
    "ImageReadError",
    "JobFailed",
    "JobKind",
    "JobRequest",
    "JobView",
    "JobsError",
    "LocalImage",
    "Move",
    "MoveJob",
    "MovePrice",
    "OutputView",
    "Picture",
    "Prompt",
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
    "has_preview_source",
    "job_folder",
    "job_name",
    "job_view",
    "live_models",
    "made_before",
    "move_jobs",
    "names_in",
    "open_account",
    "paid_not_installed",
    "pixel_facts",
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
