"""The studio's doors held as hard as the older routes (issue 26): the Generations
actions, the SpriteFrames merge and replace: true, tried as a hostile local page, a
cloned repository or a careless user would, against the real daemon and sandbox."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from companion.daemon.generation_checks import SHEETS_KEPT
from companion.sandbox import SandboxConfig, SandboxThread
from tests.conftest import ROOMY, TEST_KEY
from tests.support.calls import Api, Reply, request
from tests.support.daemon import DaemonThread, body, godot_project, wait_final
from tests.support.paid import creates

QUICK = 5.0  # seconds: a reply slower than this is a hang


@dataclass
class Studio:
    sandbox: SandboxThread
    daemon: DaemonThread
    project: Path
    job: str  # a paid, finished job into res://animations
    outside: Path  # a folder next to the project, never to be written

    def call(self, method: str, path: str, sent: Any = None) -> Reply:
        headers = {"Authorization": f"Bearer {self.daemon.info['token']}"}
        data = None
        if sent is not None:
            data = sent if isinstance(sent, bytes) else json.dumps(sent).encode()
            headers["Content-Type"] = "application/json"
        return request(method, self.daemon.url + path, body=data, headers=headers, timeout=QUICK)

    def action(self, what: str, sent: Any = None, job: str | None = None) -> Reply:
        return self.call("POST", f"/api/v1/generations/{job or self.job}/{what}", sent)

    def balance(self) -> int:
        return int(
            Api(self.sandbox.base_url, key=TEST_KEY).get("/credits/balance").json["available"]
        )

    def outside_files(self) -> list[str]:
        return sorted(str(p.relative_to(self.outside)) for p in self.outside.rglob("*"))


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    tmp = tmp_path_factory.mktemp("studio")
    sandbox = SandboxThread(
        SandboxConfig(
            api_keys=[TEST_KEY], task_seconds=0.2, limits=ROOMY, min_retry_after=0, journal=True
        )
    ).start()
    daemon = DaemonThread(tmp / "home", sandbox.base_url, TEST_KEY).start()
    try:
        project = godot_project(daemon, tmp)
        outside = tmp / "outside"
        outside.mkdir()
        (outside / "keep.txt").write_text("the user's own, outside the project\n")
        made = Studio(sandbox, daemon, project, "", outside)
        first = made.call("POST", "/api/v1/animate", body(project)).json["id"]
        assert wait_final(daemon, first)["state"] == "done"
        made.job = first
        yield made
    finally:
        daemon.stop()
        sandbox.stop()


def refused(reply: Reply, status: int, field: str) -> None:
    assert reply.status == status, reply.body[:400]
    assert reply.headers.get("content-type", "").startswith("application/json")
    assert field in reply.error["message"], reply.error


def no_script_anywhere(project: Path) -> None:
    for path in list(project.rglob("*.tres")) + list(project.rglob("*.tscn")):
        text = path.read_text(errors="replace")
        assert "GDScript" not in text and "Script" not in text, (path, text[:400])
        assert "res://../" not in text and 'path="/' not in text, (path, text[:400])


PLANTED = 'x"\n[sub_resource type="GDScript" id="evil"]\nscript/source = "OS.execute()"\n[a'


@pytest.mark.parametrize("action", ["recut", "import"])
def test_a_folder_name_never_plants_code(studio: Studio, action: str) -> None:
    """Was: 202, and the installed .tres carried the GDScript section."""
    reply = studio.action(action, {"target_folder": f"anims/{PLANTED}"})
    refused(reply, 400, "target_folder")
    quote = studio.call("POST", "/api/v1/quote", body(studio.project, target_folder=PLANTED))
    refused(quote, 400, "target_folder")
    assert not (studio.project / "anims").exists()
    no_script_anywhere(studio.project)


@pytest.mark.parametrize("action", ["recut", "import"])
def test_a_folder_name_over_255_bytes_is_a_400(studio: Studio, action: str) -> None:
    """Was: 500 on recut, import and quote."""
    long = "a" * 300
    refused(studio.action(action, {"target_folder": long}), 400, "target_folder")
    refused(studio.action(action, {"target_folder": "ok/" + "飛" * 90}), 400, "target_folder")
    quote = studio.call("POST", "/api/v1/quote", body(studio.project, target_folder=long))
    refused(quote, 400, "target_folder")


@pytest.mark.parametrize(
    "raw",
    [
        b'{"times": [NaN]}',
        b'{"times": [Infinity]}',
        b'{"times": [1e999]}',
    ],
)
def test_non_finite_times_are_refused_as_json(studio: Studio, raw: bytes) -> None:
    """Was: 200 with a reply that is not JSON."""
    refused(studio.action("contact_sheet", raw), 400, "times")


@pytest.mark.parametrize(
    "selection,field",
    [
        (b'{"mode": "range", "start_seconds": Infinity, "duration_seconds": 0.5}', "start_seconds"),
        (b'{"mode": "range", "start_seconds": 0, "duration_seconds": NaN}', "duration_seconds"),
        (b'{"mode": "range", "start_seconds": 0, "duration_seconds": 1e-300}', "duration_seconds"),
        (b'{"mode": "range", "start_seconds": 1e300, "duration_seconds": 0.5}', "start_seconds"),
    ],
)
def test_a_recut_of_impossible_numbers_never_makes_a_job(
    studio: Studio, selection: bytes, field: str
) -> None:
    """Was: accepted, and the job never finished."""
    jobs = len(studio.call("GET", "/api/v1/jobs").json["data"])
    reply = studio.action("recut", b'{"name": "numbers", "selection": ' + selection + b"}")
    refused(reply, 400, field)
    assert len(studio.call("GET", "/api/v1/jobs").json["data"]) == jobs


def recut_into(studio: Studio, folder: str, name: str, **extra: Any) -> Reply:
    """A free re-cut of the paid job into res://folder under name."""
    export = {"frame_count": 2, "output_formats": ["spritesheet", "spritesheet_json", "godot_pack"]}
    sent = {"target_folder": folder, "name": name, "export": export, **extra}
    return studio.action("recut", sent)


def test_variations_check_every_member_before_paying_the_first(studio: Studio) -> None:
    """Was: 409 "Nothing was spent", yet hero_v1 was made and charged (978 -> 967)."""
    user_file = studio.project / "animations" / "hero_v2.json"
    user_file.write_text('{"the user\'s": true}\n')
    try:
        offer = studio.action("variations", {"count": 2, "quote_only": True})
        assert offer.status == 200, offer.body
        assert [c["path"] for c in offer.json["conflicts"]] == [str(user_file)]
        assert offer.json["conflicts"][0]["name"] == "hero_v2"
        balance, sent = studio.balance(), len(creates(studio.sandbox))
        jobs = len(studio.call("GET", "/api/v1/jobs").json["data"])
        chosen = {"count": 2, "quote_id": offer.json["quote_id"], "seeds": offer.json["seeds"]}
        reply = studio.action("variations", chosen)
        refused(reply, 409, "hero_v2.json")
        assert "Nothing was spent" in reply.error["message"]
        time.sleep(0.5)  # a job made would have sent its create by now
        assert studio.balance() == balance and len(creates(studio.sandbox)) == sent
        assert len(studio.call("GET", "/api/v1/jobs").json["data"]) == jobs
        assert user_file.read_text() == '{"the user\'s": true}\n'
    finally:
        user_file.unlink()


def test_remove_files_never_follows_a_link_outside(studio: Studio) -> None:
    """Was: remove_files deleted, through a folder become a link, a copy outside."""
    made = recut_into(studio, "linked", "linked")
    assert made.status == 202, made.body
    assert wait_final(studio.daemon, made.json["id"])["state"] == "done"
    folder = studio.project / "linked"
    copy = studio.outside / "linked_copy"
    folder.rename(copy)
    folder.symlink_to(copy, target_is_directory=True)
    before = sorted(p.name for p in copy.iterdir())
    try:
        reply = studio.action("remove_files", job=made.json["id"])
        assert reply.status == 200, reply.body
        assert reply.json["removed"] == []
        assert len(reply.json["kept"]) == len(before) and all(
            "link" in k["reason"] for k in reply.json["kept"]
        )
        assert sorted(p.name for p in copy.iterdir()) == before
        shown = studio.call("GET", f"/api/v1/generations/{made.json['id']}/reveal")
        refused(shown, 409, "outside the project")
    finally:
        folder.unlink()


def test_a_forgotten_project_takes_no_files(studio: Studio) -> None:
    """Was: after projects/remove, import and recut answered 202 and wrote there."""
    root = str(studio.project)
    assert studio.call("POST", "/api/v1/projects/remove", {"root": root}).status == 200
    try:
        for action, sent in (
            ("recut", {"target_folder": "forgotten", "export": {"frame_count": 2}}),
            ("import", {"target_folder": "forgotten"}),
            ("remove_files", None),
        ):
            refused(studio.action(action, sent), 403, "no longer registered")
        assert not (studio.project / "forgotten").exists()
        assert (studio.project / "animations" / "hero.tres").is_file()
    finally:
        again = {"root": root, "engine": "godot"}
        assert studio.call("POST", "/api/v1/projects", again).status == 201


def changed_by_user(studio: Studio, folder: str, name: str) -> Path:
    """A re-cut installed at res://folder/name, its JSON then changed by the user: the
    next re-cut there meets a conflict."""
    made = recut_into(studio, folder, name)
    assert made.status == 202, made.body
    assert wait_final(studio.daemon, made.json["id"])["state"] == "done"
    theirs = studio.project / folder / f"{name}.json"
    theirs.write_text(theirs.read_text() + " ")
    return theirs


def test_replace_never_moves_a_file_out_through_a_link(studio: Studio) -> None:
    """Was: replace: true moved the user's file into the outside folder that
    .companion-replaced~ linked to."""
    theirs = changed_by_user(studio, "aside", "aside")
    text = theirs.read_text()
    (studio.project / "aside" / ".companion-replaced~").symlink_to(studio.outside)
    before = studio.outside_files()
    reply = recut_into(studio, "aside", "aside", replace=True)
    refused(reply, 409, ".companion-replaced~")
    assert theirs.read_text() == text and studio.outside_files() == before


@pytest.mark.parametrize("kind", ["fifo", "folder", "dev_zero"])
def test_replace_of_what_is_not_a_plain_file_answers_at_once(studio: Studio, kind: str) -> None:
    """Was: a FIFO never answered (40 of them starved the pool), a folder gave 500, a
    link to /dev/zero spun a thread forever."""
    name = f"odd_{kind}"
    made = recut_into(studio, "odd", name)
    assert made.status == 202, made.body
    assert wait_final(studio.daemon, made.json["id"])["state"] == "done"
    spot = studio.project / "odd" / f"{name}.json"
    spot.unlink()
    if kind == "fifo":
        os.mkfifo(spot)
    elif kind == "folder":
        spot.mkdir()
    else:
        spot.symlink_to("/dev/zero")
    started = time.monotonic()
    reply = recut_into(studio, "odd", name, replace=True)
    assert time.monotonic() - started < QUICK
    refused(reply, 409, str(spot))
    assert "not a plain file" in reply.error["message"]


SCRIPTED_EXT = (
    '[ext_resource type="Script" path="res://evil.gd" id="9_evil"]\n'
    '[ext_resource type="Texture2D" path="res://../../outside.png" id="9_far"]\n'
)
SCRIPTED_SUB = (
    '[sub_resource type="GDScript" id="GDScript_evil"]\n'
    'script/source = "extends Resource\\nfunc _init():\\n\\tOS.execute(\\"touch\\", [])\\n"\n\n'
    '[sub_resource type="AtlasTexture" id="AtlasTexture_run"]\n'
    'atlas = ExtResource("{sheet}")\nregion = Rect2(0, 0, 8, 8)\n\n'
)
RUN = (
    '{{"frames": [{{"duration": 1.0, "texture": SubResource("AtlasTexture_run")}}], '
    '"loop": true, "name": &"run", "speed": 3.0}}, '
)


def test_the_merge_keeps_the_users_animation_and_no_script(studio: Studio) -> None:
    """Was: the SpriteFrames merge copied Script ext_resources, GDScript sub_resources and
    res://../../ paths into the installed file, used or not."""
    made = recut_into(studio, "merged", "merged")
    assert wait_final(studio.daemon, made.json["id"])["state"] == "done"
    tres = studio.project / "merged" / "merged.tres"
    text = tres.read_text()
    sheet = text.split('[ext_resource type="Texture2D"', 1)[1].split('id="', 1)[1].split('"')[0]
    first_sub = text.index("[sub_resource")
    text = (
        text[:first_sub] + SCRIPTED_EXT + "\n" + SCRIPTED_SUB.format(sheet=sheet) + text[first_sub:]
    )
    text = text.replace("[resource]\n", '[resource]\nscript = SubResource("GDScript_evil")\n')
    text = text.replace("animations = [", "animations = [" + RUN, 1)
    tres.write_text(text)
    again = recut_into(studio, "merged", "merged")
    assert again.status == 202, again.body
    assert wait_final(studio.daemon, again.json["id"])["state"] == "done"
    merged = tres.read_text()
    assert '&"run"' in merged and '"speed": 3.0' in merged  # the user's animation kept
    # The new sheet, and the user's copy of the one their animation shows: nothing else.
    assert merged.count("[ext_resource") == 2 and f'id="kept_{sheet}"' in merged
    no_script_anywhere(studio.project)


def test_a_large_user_resource_is_read_in_linear_time(studio: Studio) -> None:
    """Was: a 150 KB .tres of "[a" lines made /quote take over 10 s (a quadratic regex in
    the SpriteFrames merge); here 400 KB, and the reply comes long before the bound."""
    made = recut_into(studio, "big", "big")
    assert wait_final(studio.daemon, made.json["id"])["state"] == "done"
    tres = studio.project / "big" / "big.tres"
    tres.write_text('[gd_resource type="SpriteFrames" format=3]\n' + "[a\n" * 130_000)
    quote = studio.call(
        "POST", "/api/v1/quote", body(studio.project, target_folder="big", name="big")
    )
    assert quote.status == 200, quote.body
    assert [c["path"] for c in quote.json["conflicts"]] == [str(tres)]


def test_contact_sheets_kept_are_few(studio: Studio) -> None:
    """Was: one 50-75 KB sheet kept per distinct list of times, forever."""
    folder = studio.daemon.home / "previews" / "sheets"
    for n in range(SHEETS_KEPT + 6):
        reply = studio.action("contact_sheet", {"times": [round(0.01 * (n + 1), 3)]})
        assert reply.status == 200, reply.body
        json.dumps(reply.json, allow_nan=False)  # JSON, every number finite
    assert len(list(folder.glob("*.png"))) == SHEETS_KEPT
    newest = studio.call("GET", reply.json["image"])
    assert newest.status == 200 and newest.body[:4] == b"\x89PNG"


def test_forty_hostile_requests_at_once_leave_status_answering(studio: Studio) -> None:
    """Was: 40 replace: true requests on a FIFO starved the worker pool, and /status
    stopped answering. Every reply here is JSON and no 500; /status answers meanwhile
    (its time is measured and printed, not asserted)."""
    made = recut_into(studio, "crowd", "crowd")
    assert wait_final(studio.daemon, made.json["id"])["state"] == "done"
    fifo = studio.project / "crowd" / "crowd.json"
    fifo.unlink()
    os.mkfifo(fifo)
    (studio.project / "crowd" / "crowd.png").unlink()
    (studio.project / "crowd" / "crowd.png").symlink_to("/dev/zero")
    kinds: list[tuple[str, Any]] = [
        ("recut", {"target_folder": "crowd", "name": "crowd", "replace": True,
                   "export": {"frame_count": 2, "output_formats": ["spritesheet",
                                                                   "spritesheet_json"]}}),
        ("contact_sheet", b'{"times": [NaN]}'),
        ("recut", {"target_folder": "b" * 300}),
        ("import", {"target_folder": PLANTED}),
        ("contact_sheet", {"times": [0.2, 0.4]}),
    ]  # fmt: skip
    balance, outside = studio.balance(), studio.outside_files()
    replies: list[Reply] = []
    seen: list[float] = []
    with ThreadPoolExecutor(max_workers=40) as pool:

        def timed(n: int) -> tuple[Reply, float]:
            started = time.monotonic()
            return studio.action(*kinds[n % len(kinds)]), time.monotonic() - started

        sent = [pool.submit(timed, n) for n in range(40)]
        while not all(f.done() for f in sent):
            started = time.monotonic()
            status = studio.call("GET", "/api/v1/status")
            seen.append(time.monotonic() - started)
            assert status.status == 200, status.body
        replies = [f.result()[0] for f in sent]
        slowest = max(f.result()[1] for f in sent)
    for reply in replies:
        assert reply.status < 500 and reply.headers["content-type"].startswith(
            "application/json"
        ), reply.body[:300]
    assert {r.status for r in replies} <= {200, 400, 409}
    assert studio.balance() == balance
    started = time.monotonic()
    assert studio.call("GET", "/api/v1/status").status == 200
    after = time.monotonic() - started
    ordered = sorted(seen) or [0.0]
    print(f"\n40 hostile requests: slowest reply {slowest * 1000:.0f} ms; /status during "
          f"them: {len(seen)} answers, median {ordered[len(ordered) // 2] * 1000:.0f} ms, "
          f"slowest {ordered[-1] * 1000:.0f} ms; after them: {after * 1000:.0f} ms")  # fmt: skip
    no_script_anywhere(studio.project)
    assert studio.outside_files() == outside
