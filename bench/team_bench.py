"""Team mode: four companions sharing one account, with and without a team database.

Four real companion processes (each its own COMPANION_HOME and its own key of ONE
sandbox account at the registered tier: 1 running, 3 queued, 3 creates and 60 other
requests per window) each run 15 jobs (`companion jobs run`). The same run is made twice
against fresh sandboxes: in team mode (one throwaway PostgreSQL cluster) and without it
(each companion pacing, budgeting and keeping books alone, as before team mode). The
pictures are five, each over the inline limit, the same files on every machine.

To finish in minutes the rate window is compressed from 60 s to --window seconds on both
sides (sandbox and COMPANION_RATE_WINDOW for the companions). The account's bound is
min(3 creates per window, 1 running / task time) jobs per second. The team's per-day
budget is set to 80% of what the 60 jobs cost; without team mode each companion gets that
same budget as its own (nobody sees the others' spending).

Prints per mode: 429 RATE_LIMITED answers (team goal 0), QUEUE_LIMIT_EXCEEDED (0),
throughput as a share of the account's bound (>= 0.9; jobs done from the first request
any member sends to the last job done, and again counting the interpreters' start), credits spent over the team's
per-day budget (0), uploads per distinct picture (1), ledger drift (0), and the most
memory the member processes used together.

At scale (`--members 100`): the members share one account at the highest tier (ultra:
8 running, 50 queued, 60 creates and 1200 other requests per window) through a real
PgBouncer in transaction mode (Debian's `pgbouncer`, started by the bench on loopback
like the cluster), each member with `team.pooled` on: its own pool of up to 4 client
connections, no prepared statements, and slot turns asked through the pooler instead of
LISTEN. Also printed: the most server connections PostgreSQL had open at once (sampled
from pg_stat_activity; its default limit is 100) and PgBouncer's SHOW POOLS, the
database's transactions per job, and how long the team functions waited for their
advisory locks (the server logs every wait over deadlock_timeout = 1 ms; shorter ones
count as 0).

    python bench/team_bench.py [--members 4] [--jobs 15] [--window 5] [--task-seconds 0.5]
    python bench/team_bench.py --members 100  # ultra tier, through PgBouncer, team only;
                                              # 3 jobs each, 60 s window, tasks 1 s

Ctrl-C, SIGTERM or SIGHUP stops the members, PgBouncer and the cluster and removes them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._team_server import (  # noqa: E402
    Connections,
    Memory,
    cluster,
    database_cost,
    lock_waits,
    percentile,
    stop_on_signals,
)
from companion.api.client import Client  # noqa: E402
from companion.api.pacing import Pacer  # noqa: E402
from companion.sandbox import TIERS, Limits, SandboxConfig, SandboxThread  # noqa: E402
from companion.store import Store  # noqa: E402
from companion.store.team import PostgresAccount  # noqa: E402
from tests.support.real_pgbouncer import PGBOUNCER  # noqa: E402
from tests.support.real_postgres import binaries  # noqa: E402
from tests.support.team import animation_request, big_picture  # noqa: E402

REGISTERED = Limits(concurrency=1, queue=3, create_per_minute=3, other_per_minute=60)
PICTURES = 5
LARGE = 10  # more members than this: the highest tier, through PgBouncer, team mode only
LOCKING = ("take_room", "acquire_slot", "release_slot", "reserve", "record", "settle")
LIMITS = REGISTERED  # the account's limits in this run (set from --tier)


def sandbox(args: argparse.Namespace) -> SandboxThread:
    return SandboxThread(
        SandboxConfig(
            api_keys=[f"studio:sk-m{n}" for n in range(args.members)],
            limits=LIMITS,
            task_seconds=args.task_seconds,
            rate_window=args.window,
            journal=True,
            credits=10**6,
        )
    ).start()


@contextlib.asynccontextmanager
async def bench_client(
    box: SandboxThread, work: Path, dsn: str | None, window: float
) -> AsyncIterator[tuple[Client, PostgresAccount | None]]:
    """The bench's own client of the account (a quote, the balance) and, in team mode,
    the team's admin: the service counts the bench's requests like a member's, so they
    take room in the team's windows too."""
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(
            Client(box.base_url, "sk-m0", pacer=Pacer(window=window))
        )
        admin = None
        if dsn is not None:
            store = Store(work / "bench.db")
            stack.callback(store.close)
            admin = await stack.enter_async_context(
                PostgresAccount(dsn, store=store, service=box.base_url, member="bench")
            )
            client.pacer.share(admin)
        yield client, admin


async def before_run(
    box: SandboxThread, picture: Path, work: Path, dsn: str | None, args: argparse.Namespace
) -> tuple[int, int]:
    """The budget (80% of what every job costs, asked of the service: a quote spends
    nothing), set as the team's, and the balance before, the team's first snapshot."""
    from companion.jobs.engine import Engine

    async with bench_client(box, work, dsn, args.window) as (client, admin):
        store = Store(work / "quote.db")
        try:
            cost = await Engine(store, client, box.base_url).quote(
                animation_request(picture), "probe"
            )
        finally:
            store.close()
        budget = int(cost * args.members * args.jobs * 0.8)
        before = (await client.get_credit_balance()).available
        if admin is not None:
            await admin.set_budget("*", budget, None)
            await admin.reconcile(before)
    return budget, before


async def after_run(
    box: SandboxThread, work: Path, dsn: str | None, window: float
) -> tuple[int, int | None]:
    """The balance after, and the team's drift since its first snapshot."""
    async with bench_client(box, work, dsn, window) as (client, admin):
        after = (await client.get_credit_balance()).available
        drift = None if admin is None else (await admin.reconcile(after))["drift"]
    return after, drift


def prepare_members(
    args: argparse.Namespace, work: Path, pictures: list[Path], budget: int, team: str | None
) -> list[Path]:
    homes = []
    for n in range(args.members):
        home = work / f"member{n}"
        (home / "pictures").mkdir(parents=True)
        lines = []
        if team is None:
            lines += ["budgets:", f"  per_day: {budget}"]
        else:
            lines += ["team:", f'  database: "{team}"', f"  member: artist{n}@machine{n}"]
            if args.pgbouncer:
                lines += ["  pooled: true"]
        (home / "config.yaml").write_text("\n".join(lines) + "\n")
        store = Store(home / "companion.db")
        for i in range(args.jobs):
            mine = home / "pictures" / pictures[i % len(pictures)].name
            if not mine.exists():
                shutil.copyfile(pictures[i % len(pictures)], mine)  # same bytes, own copy
            store.add_job(
                "animation",
                f"m{n}j{i}",
                animation_request(mine),
                priority=1,
                target_dir=str(home / "project"),
            )
        store.close()
        homes.append(home)
    return homes


def run_members(
    box: SandboxThread, homes: list[Path], args: argparse.Namespace
) -> tuple[float, float]:
    """Runs every member to its end (or --timeout); returns the seconds it took and the
    most memory the members used at once (MB)."""
    started = time.perf_counter()
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "companion", "jobs", "run"],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=(home / "member.log").open("wb"),  # read when a member misbehaves
            env={
                **os.environ,
                "PYTHONPATH": str(ROOT),
                "COMPANION_HOME": str(home),
                "COMPANION_BASE_URL": box.base_url,
                "COMPANION_API_KEY": f"sk-m{n}",
                "COMPANION_RATE_WINDOW": str(args.window),
            },
        )
        for n, home in enumerate(homes)
    ]
    memory = Memory([p.pid for p in processes])
    deadline = started + args.timeout
    late = 0
    try:
        for process, home in zip(processes, homes, strict=True):
            try:
                process.wait(timeout=max(1.0, deadline - time.perf_counter()))
            except subprocess.TimeoutExpired:
                late += 1
                if late == 1:
                    text = (home / "member.log").read_text(errors="replace")
                    print(f"{home.name} still ran at --timeout; its log ends:\n{text[-1500:]}")
    finally:  # at --timeout, and when the bench itself is interrupted
        for process in processes:
            if process.poll() is None:
                process.kill()
        for process in processes:
            process.wait()
        most = memory.stop()
    return time.perf_counter() - started, most


def figures(
    box: SandboxThread,
    homes: list[Path],
    elapsed: float,
    budget: int,
    args: argparse.Namespace,
    mark: int,
) -> dict[str, Any]:
    journal = box.service.journal
    assert journal is not None
    entries = journal.entries[mark:]  # the companions' requests only, not the bench's probe
    done = spent = 0
    finished = 0.0  # wall clock of the last job done
    for home in homes:
        store = Store(home / "companion.db")
        jobs = store.jobs()
        done += sum(1 for j in jobs if j.state == "done")
        finished = max(
            [finished]
            + [datetime.fromisoformat(j.updated_at).timestamp() for j in jobs if j.state == "done"]
        )
        spent += sum(store.charged(j.id) for j in jobs)
        store.close()
    bound = min(LIMITS.create_per_minute / args.window, LIMITS.concurrency / args.task_seconds)
    # From the first request any member sent (the journal's clock is this process's
    # monotonic one) to the last job done: the account's share, without interpreter start.
    first = entries[0].arrived + (time.time() - time.monotonic()) if entries else 0.0
    busy = max(1e-9, finished - first)
    return {
        "done": done,
        "elapsed": elapsed,
        "rate_limited": sum(1 for e in entries if e.error_code == "RATE_LIMITED"),
        "queue_limit": sum(1 for e in entries if e.error_code == "QUEUE_LIMIT_EXCEEDED"),
        "share": (done / busy) / bound,
        "share_with_start": (done / elapsed) / bound,
        "over_budget": max(0, spent - budget),
        "uploads_per_picture": sum(1 for e in entries if e.path == "/v1/files" and e.status == 201)
        / min(PICTURES, args.jobs),  # the pictures the jobs use
        "requests": sum(1 for e in entries if e.origin == "api"),
        "refused_creates": sum(
            1
            for e in entries
            if e.error_code == "RATE_LIMITED"
            and e.method == "POST"
            and e.path.endswith(("/animations", "/video-generations", "/animation-exports"))
        ),
    }


def solo_drift(homes: list[Path], before: int, after: int) -> int:
    """What each companion's own books miss of the account's change, summed."""
    total = 0
    for home in homes:
        store = Store(home / "companion.db")
        total += abs((after - before) + store.committed())
        store.close()
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=None, help="per member (15; 3 at scale)")
    parser.add_argument("--window", type=float, default=None, help="seconds (5; 60 at scale)")
    parser.add_argument("--task-seconds", type=float, default=None, help="(0.5; 1 at scale)")
    parser.add_argument(
        "--timeout", type=float, default=None, help="per mode, seconds (240; 600 at scale)"
    )
    parser.add_argument("--modes", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--tier", choices=sorted(TIERS), default=None)
    parser.add_argument(
        "--pgbouncer", action=argparse.BooleanOptionalAction, default=None, help="team mode's path"
    )
    args = parser.parse_args()
    large = args.members > LARGE
    args.tier = args.tier or ("ultra" if large else None)
    args.pgbouncer = large if args.pgbouncer is None else args.pgbouncer
    args.modes = args.modes or ("team" if large else "team,alone")
    args.timeout = args.timeout or (600.0 if large else 240.0)
    # At scale, 300 jobs at the spec's window: the ultra bound is then 1 job/s, which
    # 100 interpreters on a small machine can follow, over enough windows that their
    # start-up (a minute on two busy cores) is not most of the run.
    args.jobs = args.jobs or (3 if large else 15)
    args.window = args.window or (60.0 if large else 5.0)
    args.task_seconds = args.task_seconds or (1.0 if large else 0.5)
    global LIMITS
    LIMITS = TIERS[args.tier] if args.tier else REGISTERED
    if args.pgbouncer and PGBOUNCER is None:
        raise SystemExit("PgBouncer is needed: apt-get install pgbouncer")
    if binaries() is None:
        raise SystemExit("PostgreSQL (initdb, pg_ctl) is needed: apt-get install postgresql")
    stop_on_signals()
    total_started = time.perf_counter()
    results: dict[str, dict[str, Any]] = {}
    try:
        with (
            tempfile.TemporaryDirectory(prefix="team-bench-") as tmp,
            cluster(args.pgbouncer) as (server, bouncer),
        ):
            work = Path(tmp)
            pictures = [big_picture(work / f"pose{p}.png", seed=p) for p in range(PICTURES)]
            for mode in args.modes.split(","):
                box = sandbox(args)
                try:
                    dsn = server.new_database() if mode == "team" else None
                    member_dsn = bouncer.dsn(dsn) if dsn is not None and bouncer else dsn
                    (work / mode).mkdir()
                    budget, before = asyncio.run(
                        before_run(box, pictures[0], work / mode, dsn, args)
                    )
                    homes = prepare_members(args, work / mode, pictures, budget, member_dsn)
                    assert box.service.journal is not None
                    mark = len(box.service.journal.entries)
                    watch = Connections(server, bouncer, dsn) if dsn is not None else None
                    logged = server.log.stat().st_size
                    try:
                        elapsed, memory = run_members(box, homes, args)
                    finally:
                        if watch is not None:
                            watch.stop()
                            if watch.failed:
                                print("connection sampling stopped early: a server went away")
                    results[mode] = figures(box, homes, elapsed, budget, args, mark)
                    results[mode]["memory_mb"] = memory
                    if watch is not None:
                        results[mode]["servers"] = watch.most
                        results[mode]["pools"] = watch.pools
                        results[mode]["lock_waits"] = lock_waits(server.log, logged)
                    after, drift = asyncio.run(after_run(box, work / mode, dsn, args.window))
                    results[mode]["drift"] = (
                        drift if dsn is not None else solo_drift(homes, before, after)
                    )
                    results[mode]["budget"] = budget
                    if dsn is not None:
                        results[mode]["database"] = database_cost(dsn)
                finally:
                    box.stop()
    except KeyboardInterrupt as exc:
        print(
            f"team bench: interrupted ({exc or 'SIGINT'}) after "
            f"{time.perf_counter() - total_started:.0f} s; members, PgBouncer and the "
            "cluster are stopped and removed",
            file=sys.stderr,
        )
        raise SystemExit(130) from None
    report(results, args, time.perf_counter() - total_started)


def report(results: dict[str, dict[str, Any]], args: argparse.Namespace, total: float) -> None:
    bound = min(LIMITS.create_per_minute / args.window, LIMITS.concurrency / args.task_seconds)
    budget = next(iter(results.values()))["budget"]
    print(
        f"{args.members} companions x {args.jobs} jobs, one sandbox account at the "
        f"{args.tier or 'registered'} limits ({LIMITS.concurrency} running, {LIMITS.queue} "
        f"queued, {LIMITS.create_per_minute} creates a window), "
        f"{'through PgBouncer (transaction mode)' if args.pgbouncer else 'direct'}, window compressed to {args.window:g} s, tasks {args.task_seconds:g} s; "
        f"bound {bound:.2f} jobs/s; team budget per day {budget} credits"
    )
    rows = [
        ("429 RATE_LIMITED", "rate_limited", "{:d}", "0"),
        ("  of them on creates", "refused_creates", "{:d}", "0"),
        ("QUEUE_LIMIT_EXCEEDED", "queue_limit", "{:d}", "0"),
        ("jobs done", "done", "{:d}", ""),
        ("elapsed (s)", "elapsed", "{:.1f}", ""),
        ("throughput / bound", "share", "{:.2f}", ">= 0.9"),
        ("  counting process start", "share_with_start", "{:.2f}", ""),
        ("credits over team budget", "over_budget", "{:d}", "0"),
        ("uploads per picture", "uploads_per_picture", "{:.2f}", "1"),
        ("ledger drift (credits)", "drift", "{}", "0"),
        ("API requests", "requests", "{:d}", ""),
        ("members' memory (MB, max)", "memory_mb", "{:.0f}", ""),
    ]
    print(f"  {'':<26} {'team mode':>10} {'alone':>10}   goal (team)")
    for label, key, fmt, goal in rows:
        team, alone = (
            fmt.format(results[m][key]) if m in results else "-" for m in ("team", "alone")
        )
        print(f"  {label:<26} {team:>10} {alone:>10}   {goal}")
    if "team" in results and "database" in results["team"]:
        cost, done = results["team"]["database"], max(1, results["team"]["done"])
        parts = ", ".join(
            f"{name} {calls / done:.1f}"
            for name, calls in sorted(cost.items())
            if name != "transactions"
        )
        print(
            f"  team database per job done: {cost['transactions'] / done:.1f} transactions "
            f"(function calls: {parts})"
        )
        team = results["team"]
        print(
            f"  PostgreSQL connections at most: {team['servers']} (its default limit: 100)"
            + (f"; PgBouncer pools at most: {team['pools']}" if team["pools"] else "")
        )
        locking = sum(cost.get(name, 0) for name in LOCKING)
        waits = team["lock_waits"]
        padded = waits + [0.0] * max(0, locking - len(waits))
        print(
            f"  advisory lock waits: {len(waits)} over 1 ms in {locking} locking calls; "
            f"p50 {percentile(padded, 0.5):.1f} ms, p99 {percentile(padded, 0.99):.1f} ms "
            f"(of the waits over 1 ms: p50 {percentile(waits, 0.5):.1f} ms, "
            f"p99 {percentile(waits, 0.99):.1f} ms, max {max(waits, default=0):.1f} ms)"
        )
    print(f"  whole bench: {total:.0f} s")


if __name__ == "__main__":
    main()
