"""A rule-based state machine that drives the companion against the real sandbox on
loopback through random sequences, and after every step compares the local books with
the sandbox's own account. Used by tests/unit/jobs/test_books_machine.py (a fixed seed) and
bench/books_machine_bench.py (a long run).

Ways in: the job engine itself (animate, a refusal at the service, a cancel at each
state a job can be cancelled in), `companion animate` in its own process, the daemon
(`companion serve`, its own process) through its API and through a watched inbox, and
the daemon killed with SIGKILL in the middle of a job and started again. Around them:
the sandbox's fault profiles, download URLs that expire within a second, and budgets a
day and a month (a job over one waits for approval, holding nothing, until approved).

After every step: the books (`Store`, and what `companion credits --json` prints from
it) equal what the account spent at the service; no hold is left; every job has ended
saying why, or waits for approval holding nothing; the same picture with the same
settings, once done, was never paid again unless asked with again; no budget was passed
except by approved jobs; and pay once per generation: a renamed, re-framed, edited or
re-cut request of a generation paid for (its clip kept) spends nothing, so paid
generations == distinct remote parts asked for + explicit new takes (+ those asked again
after the user's cap evicted their clip), see tests/support/books_generations.py."""

from __future__ import annotations

import asyncio
import itertools
import re
import shutil
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import yaml
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from companion.api.client import Client
from companion.jobs.engine import Budget, Engine
from companion.jobs.lifecycle import FINAL, State
from companion.jobs.resume import paid_not_installed
from companion.media.demo_art import draw_character
from companion.sandbox import SandboxThread
from companion.sandbox.face import LATITUDE, with_changes
from companion.sandbox.faults import Faults
from companion.sandbox.state import stable_id
from companion.store import Store, day_start, month_start
from companion.store.books import store_books
from companion.store.clips import ClipStore
from tests.support.books_generations import Generations
from tests.support.books_ways import (
    DaemonProcess,
    animate_cli,
    companion_cli,
    credits_json,
    wait_for,
)

# The latitude face with its waits made short, for the machine's test and its long run:
# the 9 s in-progress window and the 2 s credit posting are tested exactly in
# tests/integration/sandbox/test_books_service.py; here what matters is that they happen at every
# step.
QUICK_LATITUDE = with_changes(LATITUDE, in_progress_seconds=1.5, credits_posted_after=0.5)

# "downloading": the service made it and charged for it; its outputs never go in.
CANCEL_AT = ("new", "quoted", "running", "downloading")
START = 1000
PICTURES = 2  # few, so the same picture comes back
PROMPTS = ("idle", "walk")
FAULT_PROFILES = ("none", "unavailable", "resets", "dropped-create", "internal", "truncated")
EXPORT = {
    "frame_count": 4,
    "output_width": 64,
    "output_height": 64,
    "output_formats": ["spritesheet", "spritesheet_json"],
}
VIDEO = {"duration_seconds": 1, "resolution": "360p"}
CLI_SETTINGS = ["--formats", "spritesheet,spritesheet_json", "--frame-count", "4"]
CLI_SETTINGS += ["--width", "64", "--height", "64", "--seconds", "1", "--resolution", "360p"]
WAITING = (State.AWAITING_APPROVAL,)
MARGIN = 50  # percent over its quote a create may be priced at (config price_margin_percent)


class BooksMachine(RuleBasedStateMachine):
    """One account and one COMPANION_HOME per sequence; `sandbox` and `folder` are set by
    the caller before the run (see make_machine)."""

    sandbox: SandboxThread
    folder: Path
    runs = itertools.count()
    steps_total = 0  # rules run, over every sequence
    checked = 0  # invariant checks passed, over every sequence (the bench reports it)
    rules_run: ClassVar[Counter[str]] = Counter()  # by rule, over every sequence

    def __init__(self) -> None:
        super().__init__()
        self.run = next(self.runs)
        self.home = self.folder / f"run{self.run}"
        self.project = self.home / "game"
        (self.project / "pics").mkdir(parents=True)
        self.store = Store(self.home / "companion.db")
        self.steps = 0
        self.key = f"sk-run{self.run}"  # each sequence its own account
        self.account = stable_id("account", f"run{self.run}")
        self.sandbox.call(self._add_key)
        self.daemon: DaemonProcess | None = None
        # The latitude face prices a create over its quote; the user allows a margin, so
        # jobs are made (a task priced past it is cancelled:
        # tests/integration/sandbox/test_books_service.py).
        self.budget = Budget(price_margin_percent=MARGIN)
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / "config.yaml").write_text(yaml.safe_dump(self._config()))
        self.key_of: dict[str, tuple[Any, ...]] = {}  # job id -> what it made, by way in
        self.agains: Counter[tuple[Any, ...]] = Counter()  # asked again, by the same key
        self.daemons_own: set[str] = set()  # jobs the daemon runs (approved through it)
        self.last: tuple[Any, dict[str, Any]] | None = None  # the last way in, to repeat
        self.generations = Generations(self.store, self.home / "clips")
        self.evictions = 0  # clips the user's cap let go: their generations pay again
        self.godot = self.home / "godot"  # a Godot project: its SpriteFrames get edited
        (self.godot / "pics").mkdir(parents=True)
        (self.godot / "project.godot").write_text("config_version=5\n")
        for index in range(PICTURES):
            draw_character(40 + 9 * index).save(self.project / "pics" / f"pic{index}.png")
            shutil.copyfile(self.project / "pics" / f"pic{index}.png",
                            self.godot / "pics" / f"pic{index}.png")  # fmt: skip

    def _add_key(self) -> None:
        service = self.sandbox.service
        service.config.api_keys.append(f"run{self.run}:{self.key}")
        service._register_keys()

    def teardown(self) -> None:
        try:
            if self.steps:  # the command line prints the books the invariants checked
                shown = credits_json(self.home, self.sandbox.base_url, self.key)
                spent = START - self._available()
                assert (shown["spent_month"], shown["held"]) == (spent, 0), shown
                assert shown["available"] == START - spent and shown["agree"], shown
        finally:
            if self.daemon is not None:
                self.daemon.stop()
            self.store.close()
            self._set_faults("none")
            self.sandbox.call(lambda: setattr(self.sandbox.service.storage, "url_seconds", 3600))

    # -- set-up -------------------------------------------------------------------------

    @initialize(day=st.sampled_from([None, 14, 30]), month=st.sampled_from([None, 20, 45]))
    def budgets(self, day: int | None, month: int | None) -> None:
        """Budgets for this sequence, as config.yaml holds them (a 1 s job costs 6)."""
        self.budget = Budget(None, day, month, price_margin_percent=MARGIN)
        budgets = {"per_day": day, "per_month": month}
        (self.home / "config.yaml").write_text(yaml.safe_dump(self._config(budgets)))

    def _config(self, budgets: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"price_margin_percent": MARGIN, **({"budgets": budgets} if budgets else {})}

    def _step(self, rule: str) -> None:
        self.steps += 1
        BooksMachine.steps_total += 1
        BooksMachine.rules_run[rule] += 1

    def _new_jobs(self, before: set[str], key: tuple[Any, ...]) -> None:
        for job in self.store.jobs():
            if job.id not in before:
                self.key_of[job.id] = key
                if key[0] in ("api", "drop"):
                    self.daemons_own.add(job.id)

    def _ids(self) -> set[str]:
        return {j.id for j in self.store.jobs()}

    async def _engine(self, action: Any) -> Any:
        async with Client(self.sandbox.base_url, self.key) as client:
            engine = Engine(self.store, client, self.sandbox.base_url, budget=self.budget)
            return await action(engine, client)

    def _fresh_picture(self) -> Path:
        image = self.home / f"step{self.steps}.png"
        draw_character(40 + self.steps % 20).save(image)
        return image

    # -- the job engine itself ----------------------------------------------------------

    def _request(self, reject: bool) -> dict[str, Any]:
        prompt = f"step {self.steps}" + (" sandbox:reject" if reject else "")
        image = str(self._fresh_picture())
        return {"image": image, "prompt": prompt, "video": VIDEO, "export": EXPORT}

    @rule(reject=st.booleans())
    def animate(self, reject: bool) -> None:
        self._step("animate")
        request = self._request(reject)

        async def go(engine: Engine, client: Client) -> None:
            job = engine.submit(request, name=f"s{self.steps}", target_dir=self.home / "out")
            await engine.run(job.id)

        asyncio.run(self._engine(go))

    @rule(at=st.sampled_from(CANCEL_AT))
    def start_and_cancel(self, at: str) -> None:
        self._step("start_and_cancel")
        request = self._request(False)

        async def go(engine: Engine, client: Client) -> None:
            job = engine.submit(request, name=f"s{self.steps}", target_dir=self.home / "out")
            if at == "new":
                await engine.cancel(job.id)
                return
            runner = asyncio.create_task(engine.run(job.id))
            while self.store.job(job.id).state not in (at, *FINAL, *WAITING):
                await asyncio.sleep(0.01)
            await engine.cancel(job.id)
            await runner

        asyncio.run(self._engine(go))

    @precondition(lambda self: any(j.state in WAITING for j in self.store.jobs()))
    @rule(data=st.data())
    def approve(self, data: st.DataObject) -> None:
        """A job over a budget is approved, then runs (to done or a failure saying why)."""
        self._step("approve")
        waiting = [j.id for j in self.store.jobs() if j.state in WAITING]
        chosen = data.draw(st.sampled_from(sorted(waiting)))
        if chosen in self.daemons_own:  # as the dock approves it
            reply = self._daemon().call("POST", f"/api/v1/jobs/{chosen}/approve")
            assert reply.status == 200, reply.body
            self._settled({chosen})
            return

        async def go(engine: Engine, client: Client) -> None:
            engine.approve(chosen)
            await engine.run(chosen)

        asyncio.run(self._engine(go))

    @rule()
    def animate_into_a_folder_that_is_a_file(self) -> None:
        """The target turned into a file: the service makes and charges for the video, and
        its outputs cannot go in (the job ends failed, paid for, retryable free)."""
        self._step("animate_into_a_folder_that_is_a_file")
        blocker = self.home / "blocked"
        if not blocker.exists():
            blocker.write_text("a file where the folder goes")
        request = self._request(False)

        async def go(engine: Engine, client: Client) -> None:
            job = engine.submit(request, name=f"s{self.steps}", target_dir=blocker / "out")
            await engine.run(job.id)

        asyncio.run(self._engine(go))

    @precondition(lambda self: any(paid_not_installed(self.store, j) for j in self.store.jobs()))
    @rule(data=st.data())
    def install_what_was_paid_for(self, data: st.DataObject) -> None:
        """A job paid for whose outputs did not go in is retried: installed, not paid again."""
        self._step("install_what_was_paid_for")
        paid = [j.id for j in self.store.jobs() if paid_not_installed(self.store, j)]
        self.install_free(data.draw(st.sampled_from(sorted(paid))))

    def install_free(self, chosen: str) -> None:
        charged = self.store.charged(chosen)
        blocker = self.home / "blocked"
        if blocker.is_file():  # the folder is fixed first
            blocker.unlink()
        if chosen in self.daemons_own:  # as the dock retries it
            reply = self._daemon().call("POST", f"/api/v1/jobs/{chosen}/retry")
            assert reply.status == 202, reply.body
            self._settled({chosen})
        else:

            async def go(engine: Engine, client: Client) -> None:
                engine.retry(chosen)
                await engine.run(chosen)

            asyncio.run(self._engine(go))
        assert self.store.job(chosen).state == State.DONE, self.store.job(chosen).error
        assert self.store.charged(chosen) == charged  # installing cost nothing

    # -- the command line ---------------------------------------------------------------

    @rule(
        picture=st.integers(0, PICTURES - 1),
        prompt=st.sampled_from(PROMPTS),
        again=st.booleans(),
        frames=st.sampled_from([4, 6]),
        renamed=st.booleans(),
    )
    def animate_from_the_command_line(
        self, picture: int, prompt: str, again: bool, frames: int = 4, renamed: bool = False
    ) -> None:
        """Other frames or another name are local: the same generation, free."""
        self._step("animate_from_the_command_line")
        given = {"picture": picture, "prompt": prompt, "frames": frames, "renamed": renamed}
        self.last = (self.animate_from_the_command_line, given)
        key = ("cli", picture, prompt)
        self.agains[key] += again
        before, asked = self._ids(), self.generations.before()
        image = self.project / "pics" / f"pic{picture}.png"
        settings = [a if a != "4" else str(frames) for a in CLI_SETTINGS]
        name = f"pic{picture}_{prompt}" + (f"_r{self.steps}" if renamed else "")
        args = [str(image), "--prompt", prompt, *settings, "--out", str(self.home / "cli")]
        args += ["--name", name] + (["--again"] if again else [])
        done = animate_cli(self.home, self.sandbox.base_url, self.key, args)
        assert done.returncode in (0, 1, 3, 4), done.stderr  # never a crash
        assert "Traceback" not in done.stderr, done.stderr
        self._new_jobs(before, key)
        self.generations.after(asked, again)

    @precondition(lambda self: any(self._recuttable()))
    @rule(data=st.data(), frames=st.sampled_from([3, 5]))
    def recut_into_the_same_folder(self, data: st.DataObject, frames: int) -> None:
        """`companion recut` of a done job into its own folder, under its own name: free,
        and the next request of that generation is still free."""
        self._step("recut_into_the_same_folder")
        chosen = data.draw(st.sampled_from(sorted(self._recuttable())))
        spent = START - self._available()
        job = self.store.job(chosen)
        args = ["recut", chosen[:8], "--formats", "spritesheet,spritesheet_json"]
        args += ["--frame-count", str(frames), "--width", "64", "--height", "64"]
        done = companion_cli(self.home, self.sandbox.base_url, self.key,
                             [*args, "--out", str(job.target_dir)])  # fmt: skip
        assert "Traceback" not in done.stderr, done.stderr
        assert START - self._available() == spent  # a re-cut is never paid

    def _recuttable(self) -> list[str]:
        return [
            j.id
            for j in self.store.jobs()
            if j.kind == "animation" and j.state == State.DONE and j.request.get("origin") == "cli"
            and (self.home / "clips" / f"{j.id}.mp4").is_file()
        ]  # fmt: skip

    @rule()
    def evict_clips(self) -> None:
        """The user sets a clip store cap of 0 MB: every kept clip goes (oldest first);
        their generations are paid again when asked (the quote says why)."""
        self._step("evict_clips")
        self.evictions += len(ClipStore(self.home / "clips", 0).evict())

    # -- the daemon: its API, a watched inbox, SIGKILL ----------------------------------

    def _daemon(self) -> DaemonProcess:
        if self.daemon is None:
            self.daemon = DaemonProcess(self.home, self.sandbox.base_url, self.key)
        if not self.daemon.running:
            self.daemon.start()
            given = {
                "root": str(self.project),
                "inbox": "inbox",
                "defaults": {"prompt": "idle", "export": EXPORT, "video": VIDEO},
            }
            reply = self.daemon.call("POST", "/api/v1/projects", given)
            assert reply.status in (200, 201), reply.body
            godot = {"root": str(self.godot), "engine": "godot"}
            reply = self.daemon.call("POST", "/api/v1/projects", godot)
            assert reply.status in (200, 201), reply.body
        return self.daemon

    def _settled(self, job_ids: set[str] | None = None, seconds: float = 90) -> None:
        """Wait until every job (or those given) ended or waits for approval."""

        def settled() -> bool:
            jobs = [j for j in self.store.jobs() if job_ids is None or j.id in job_ids]
            return all(j.state in FINAL or j.state in WAITING for j in jobs)

        wait_for(settled, seconds, "jobs settling")

    def _api_body(self, picture: int, prompt: str) -> dict[str, Any]:
        return {
            "project_root": str(self.project),
            "image_path": f"pics/pic{picture}.png",
            "prompt": prompt,
            "export": EXPORT,
            "video": VIDEO,
        }

    @rule(
        picture=st.integers(0, PICTURES - 1),
        prompt=st.sampled_from(PROMPTS),
        frames=st.sampled_from([4, 6]),
        renamed=st.booleans(),
    )
    def animate_through_the_api(
        self, picture: int, prompt: str, frames: int = 4, renamed: bool = False
    ) -> None:
        self._step("animate_through_the_api")
        given = {"picture": picture, "prompt": prompt, "frames": frames, "renamed": renamed}
        self.last = (self.animate_through_the_api, given)
        body = self._api_body(picture, prompt)
        body["export"] = {**EXPORT, "frame_count": frames}
        if renamed:
            body["name"] = f"api_r{self.steps}"
        self._press(body, ("api", picture, prompt))

    def _press(self, body: dict[str, Any], key: tuple[Any, ...]) -> None:
        """Quote, then animate: a quote that says 0 spends 0."""
        daemon = self._daemon()
        before, asked = self._ids(), self.generations.before()
        quote = daemon.call("POST", "/api/v1/quote", body)
        assert quote.status == 200, quote.body
        spent = START - self._available()
        reply = daemon.call("POST", "/api/v1/animate", body)
        assert reply.status in (200, 202), reply.body
        self._settled()
        self._new_jobs(before, key)
        self.generations.after(asked, False)
        if quote.json["spends"] == 0:
            assert START - self._available() == spent, quote.json

    @rule(picture=st.integers(0, PICTURES - 1), prompt=st.sampled_from(PROMPTS))
    def edit_in_godot_then_ask_again(self, picture: int, prompt: str) -> None:
        """Into a Godot project through the API; the user changes the SpriteFrames' speed;
        the same request again is free and the edit survives its install."""
        self._step("edit_in_godot_then_ask_again")
        body = {**self._api_body(picture, prompt), "project_root": str(self.godot)}
        body["export"] = {**EXPORT, "output_formats": [*EXPORT["output_formats"], "godot_pack"]}
        body["name"] = f"pic{picture}_{prompt}"
        tres = self.godot / "anim" / f"{body['name']}.tres"
        body["target_folder"] = "anim"
        self._press(body, ("godot", picture, prompt))
        if not tres.is_file():
            return  # not made (a fault, a budget): nothing to edit
        speed = f'"speed": {self.steps}.5'
        # The animation's own speed line, not the companion's record of what it made.
        tres.write_text(re.sub(r'^"speed": [0-9.]+', speed, tres.read_text(), flags=re.M))
        self._press(body, ("godot", picture, prompt))
        assert speed in tres.read_text(), "the user's edit of the SpriteFrames was lost"

    @rule(picture=st.integers(0, PICTURES - 1))
    def drop_into_the_inbox(self, picture: int) -> None:
        # A drop joining a job that waits for approval waits with it, in .processing.
        key = ("drop", picture)
        assume(
            not any(j.state in WAITING and self.key_of.get(j.id) == key for j in self.store.jobs())
        )
        self._step("drop_into_the_inbox")
        self.last = (self.drop_into_the_inbox, {"picture": picture})
        self._daemon()
        before = self._ids()
        inbox = self.project / "inbox"
        dropped = inbox / f"drop{self.steps}.png"
        dropped.write_bytes((self.project / "pics" / f"pic{picture}.png").read_bytes())

        processing = inbox / ".processing"

        def ended() -> bool:  # in done/ or failed/, or its job waits for approval
            if dropped.exists():
                return False
            if any(j.state in WAITING for j in self.store.jobs() if j.id not in before):
                return True
            return not (processing.exists() and any(processing.iterdir()))

        wait_for(ended, 90, "the drop being taken and ended")
        self._settled()
        self._new_jobs(before, key)

    @precondition(lambda self: self.last is not None)
    @rule()
    def the_same_again(self) -> None:
        """The last way in used, with the same picture and settings (not asked again)."""
        assert self.last is not None
        BooksMachine.rules_run["the_same_again"] += 1
        way, given = self.last
        way(**({"again": False} if way == self.animate_from_the_command_line else {}), **given)

    @rule()
    def kill_the_daemon_mid_job(self) -> None:
        """SIGKILL while a job of its own is under way, then start it again: it resumes."""
        self._step("kill_the_daemon_mid_job")
        daemon = self._daemon()
        image = self._fresh_picture()
        target = self.project / "pics" / image.name
        target.write_bytes(image.read_bytes())
        body = {**self._api_body(0, "idle"), "image_path": f"pics/{image.name}"}
        reply = daemon.call("POST", "/api/v1/animate", body)
        assert reply.status == 202, reply.body
        job_id = str(reply.json["id"])
        self.daemons_own.add(job_id)
        busy = ("creating", "running", "downloading", *FINAL, *WAITING)
        wait_for(lambda: self.store.job(job_id).state in busy, 60, "the job under way")
        daemon.kill()
        self._daemon()
        self._settled({job_id}, seconds=120)

    # -- the service around them --------------------------------------------------------

    def _set_faults(self, spec: str) -> None:
        def swap() -> None:
            faults = Faults(spec)
            self.sandbox.service.faults = faults
            self.sandbox.service.storage.faults = faults

        self.sandbox.call(swap)

    @rule(profile=st.sampled_from(FAULT_PROFILES), seed=st.integers(0, 9))
    def service_faults(self, profile: str, seed: int) -> None:
        """The sandbox's fault profile from now on (the same seed, the same decisions)."""
        self._step("service_faults")
        self._set_faults(f"{profile}:{seed}")

    @rule(seconds=st.sampled_from([1, 3600]))
    def download_urls_expire(self, seconds: int) -> None:
        """Signed download URLs that expire within a second (or an hour) of being given."""
        self._step("download_urls_expire")
        self.sandbox.call(lambda: setattr(self.sandbox.service.storage, "url_seconds", seconds))

    # -- after every step ---------------------------------------------------------------

    def _available(self) -> int:
        accounts = self.sandbox.call(lambda: self.sandbox.service.state.accounts)
        return int(accounts[self.account].available)

    @invariant()
    def books_equal_the_account(self) -> None:
        spent = START - self._available()
        moves = self.store.credit_moves()
        assert moves["held"] == 0, f"a hold is neither charged nor released: {moves}"
        assert moves["spent"] == spent, f"books {moves} against {spent} at the service"
        assert self.store.charged() == spent, "what budgets count is not what was spent"
        shown = store_books(self.store, START - spent)  # what `companion credits` prints
        assert shown["spent_month"] == spent and shown["agree"], shown
        BooksMachine.checked += 1

    @invariant()
    def every_job_ends_saying_why(self) -> None:
        for job in self.store.jobs():
            entries = {e["entry"] for e in self.store.ledger(job.id)}
            if job.state in WAITING:
                assert not entries & {"hold", "charge"}, f"{job.name} waits holding {entries}"
                continue
            assert job.state in FINAL, f"{job.name} left {job.state}"
            if job.state != "done":
                assert job.error, f"{job.name} ended {job.state} with no reason"
            if "hold" in entries:
                assert entries & {"charge", "release", "refund"}, f"{job.name}: {entries}"

    @invariant()
    def nothing_done_is_paid_again(self) -> None:
        """The same picture and settings, by the same way in, once done: paid again only
        as often as it was asked with again, or when its kept clip was evicted."""
        paid_after_done: Counter[tuple[Any, ...]] = Counter()
        done: set[tuple[Any, ...]] = set()
        for job in self.store.jobs():  # oldest first
            key = self.key_of.get(job.id)
            if key is None:
                continue
            if key in done and self.store.charged(job.id) > 0:
                paid_after_done[key] += 1
            if job.state == State.DONE:
                done.add(key)
        for key, paid in paid_after_done.items():
            allowed = self.agains[key] + self.evictions
            assert paid <= allowed, f"{key} paid {paid} more times once done"

    @invariant()
    def paid_once_per_generation(self) -> None:
        self.generations.check()

    @invariant()
    def budgets_hold(self) -> None:
        """Only approved jobs pass a budget a day or a month."""
        moment = datetime.now(UTC)
        today, month = day_start(moment), month_start(moment)
        approved = [j.id for j in self.store.jobs() if j.approved]
        for limit, since in ((self.budget.per_day, today), (self.budget.per_month, month)):
            if limit is None:
                continue
            spent = self.store.charged(since=since)
            passed = sum(self.store.charged(job_id, since) for job_id in approved)
            assert spent - passed <= limit, f"{spent} spent since {since}, {passed} approved"


def make_machine(sandbox: SandboxThread, folder: Path) -> type[BooksMachine]:
    return type("Books", (BooksMachine,), {"sandbox": sandbox, "folder": folder})
