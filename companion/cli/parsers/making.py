"""The commands that make animations: export and recut (local, no credits), animate and
demo (one click, resumable), and the local job queue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.cli.options import add_export_options, add_generation_options, finite
from companion.cli.parsers.base import command, json_flag, verbs


def add_export(commands: Any) -> None:
    export = command(
        commands,
        "export",
        "export",
        help="convert a local video into engine-ready formats (no service, no credits)",
        description="Sample frames from a video and write the formats asked for into "
        "--out. An output never replaces the video itself.",
    )
    export.add_argument("video", type=Path, help="a video file (mp4, webm, mov, ...)")
    add_export_options(export, out_help="folder for the outputs (made if missing)", local=True)


def add_recut(commands: Any) -> None:
    recut = command(
        commands,
        "recut",
        "recut",
        help="export a finished job's kept video again (other frames, size, range, "
        "formats): local, no credits",
        description="The companion keeps each paid video (COMPANION_HOME/clips; "
        "companion clips lists them). recut exports it again exactly as "
        "companion export would, named after the job unless --name says otherwise.",
    )
    recut.add_argument("job", help="the job's id or a unique prefix (companion jobs list)")
    add_export_options(
        recut,
        out_help="folder for the outputs (made if missing)",
        local=True,
        size_default="the size the clip was cut at",
    )


def add_clips(commands: Any) -> None:
    clips = command(
        commands,
        "clips",
        "clips",
        help="the kept paid videos: their size and the generations they answer",
        description="Every paid video the companion keeps, oldest first, with its size, the "
        "generation it is (picture, prompt) and the re-cuts it answered for free; and the "
        "clips a size cap (clip_store_mb in config.yaml, unset: no cap) let go.",
    )
    json_flag(clips, "one JSON document")


def add_animate(commands: Any) -> None:
    animate = command(
        commands,
        "animate",
        "animate",
        help="animate an image end to end (one click), resumable",
        description="Checks every option, quotes, creates one task, waits, and installs "
        "the formats asked for into --out. Run the same command again after a crash or "
        "Ctrl-C and it resumes the same job: nothing is paid twice.",
    )
    animate.add_argument("image", type=Path, help="the first frame: PNG, JPEG or WebP")
    add_generation_options(animate)
    animate.add_argument(
        "--timeout",
        type=finite,
        metavar="S",
        help="stop waiting after this many seconds; the task goes on, run again to collect "
        "it (default: timeout_seconds in config.yaml, 900)",
    )
    animate.add_argument(
        "--again",
        action="store_true",
        help="pay for a new take even if this picture, prompt and video options were "
        "generated already (otherwise that clip is re-cut here with these frames, size, "
        "formats, name and folder, and nothing is spent)",
    )
    add_export_options(animate, out_help="folder for the outputs (made if missing)")

    demo = command(
        commands,
        "demo",
        "animate",
        help="draw a character and animate it into every format (the first thing to try)",
    )
    demo.add_argument(
        "--out",
        type=Path,
        default=Path("out/demo"),
        metavar="FOLDER",
        help="folder for hero.png and animation/ (default out/demo)",
    )


def add_character(commands: Any) -> None:
    character = command(
        commands,
        "character",
        "character",
        help="animate a character's moves from one picture (idle, walk, attack...): one "
        "quote for the set, wired into the engine",
        description="Each --move is a generation of its own, paid once ever: run the same "
        "command again and nothing is spent; add a move and only that one is paid. One "
        "quote for the whole set, held to the budgets once. Into a Godot project the moves "
        "become one SpriteFrames NAME.tres (an animation per move) and a scene NAME.tscn "
        "playing it. Moves named idle, walk, run, fly, swim and float loop; others play "
        "once unless --loop names them.",
    )
    character.add_argument("image", type=Path, help="the character: PNG, JPEG or WebP")
    character.add_argument(
        "--move",
        action="append",
        required=True,
        metavar="NAME=PROMPT",
        help="a move: its animation's name and what should move, e.g. --move "
        "idle='idle breathing'; repeat for each move",
    )
    character.add_argument(
        "--loop",
        action="append",
        default=[],
        dest="looping",
        metavar="NAME",
        help="this move loops",
    )
    character.add_argument(
        "--no-loop",
        action="append",
        default=[],
        metavar="NAME",
        help="this move plays once (idle, walk, run, fly, swim and float loop unless told)",
    )
    add_generation_options(character, one_prompt=False)
    character.add_argument(
        "--timeout",
        type=finite,
        metavar="S",
        help="stop waiting after this many seconds; the tasks go on, run again to collect "
        "them (default: timeout_seconds in config.yaml, 900)",
    )
    character.add_argument("--again", action="store_true", help="pay for a new take of every move")
    character.add_argument(
        "--approve",
        action="store_true",
        help="make the set even when what it spends is over a budget in config.yaml",
    )
    add_export_options(
        character,
        out_help="folder for the outputs (made if missing); in a Godot or Unity project, "
        "the character is wired into it",
        formats_default="the project's engine pack (spritesheet otherwise)",
        seam_search="--seamless",
    )


def add_jobs(commands: Any) -> None:
    jobs = verbs(commands, "jobs", help="the local job queue: add, run, list, show, control")
    add = command(jobs, "add", "jobs", help="queue a one-click animation for a project folder")
    add.add_argument("image", type=Path, help="the first frame: PNG, JPEG or WebP")
    add_generation_options(add)
    add.add_argument(
        "--target", type=Path, required=True, metavar="FOLDER", help="folder the outputs go into"
    )
    add.add_argument(
        "--priority",
        choices=["editor", "folder"],
        default="folder",
        help="editor jobs run before folder batches (default folder)",
    )
    add_export_options(add, out_help=None)
    command(jobs, "run", "jobs", help="run every unfinished job (resumes after a crash)")
    command(jobs, "list", "jobs_books", help="every job and its state")
    for verb, text, handler in (
        ("show", "a job, its ledger and outputs", "jobs_books"),
        ("cancel", "cancel a job (remotely too)", "jobs:cmd_control"),
        ("retry", "retry a job that never reached the service", "jobs:cmd_control"),
        (
            "approve",
            "let a job held by a budget go on: it is made now, paid and installed",
            "jobs:cmd_control",
        ),
    ):
        parser = command(jobs, verb, handler, help=text)
        parser.add_argument("job", help="a job id or its first characters")
