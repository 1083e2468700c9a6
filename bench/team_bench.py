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
per-day budget (0), uploads per distinct picture (1), ledger drift (0).

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
    python bench/team_bench.py --members 100      # ultra tier, through PgBouncer, team only
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.api.client import Client  # noqa: E402
from companion.sandbox import TIERS, Limits, SandboxConfig, SandboxThread  # noqa: E402
from companion.store import Store  # noqa: E402
from companion.store.team import PostgresAccount  # noqa: E402
from tests.real_pgbouncer import PGBOUNCER, RealPgBouncer  # noqa: E402
from tests.real_postgres import RealPostgres, binaries  # noqa: E402
from tests.team_helpers import animation_request, big_picture  # noqa: E402

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


async def price(box: SandboxThread, picture: Path, work: Path) -> int:
    """What one job costs, asked of the service (a quote spends nothing)."""
    from companion.jobs.engine import Engine

    store = Store(work / "quote.db")
    async with Client(box.base_url, "sk-m0") as client:
        credits = await Engine(store, client, box.base_url).quote(
            animation_request(picture), "probe"
        )
    store.close()
    return credits


async def balance(box: SandboxThread) -> int:
    async with Client(box.base_url, "sk-m0") as client:
        return (await client.get_credit_balance()).available


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


def run_members(box: SandboxThread, homes: list[Path], args: argparse.Namespace) -> float:
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
    deadline = started + args.timeout
    late = 0
    for process, home in zip(processes, homes, strict=True):
        try:
            process.wait(timeout=max(1.0, deadline - time.perf_counter()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            late += 1
            if late == 1:
                text = (home / "member.log").read_text(errors="replace")
                print(f"{home.name} still ran at --timeout; its log ends:\n{text[-1500:]}")
    return time.perf_counter() - started


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
        / PICTURES,
        "requests": sum(1 for e in entries if e.origin == "api"),
        "refused_creates": sum(
            1
            for e in entries
            if e.error_code == "RATE_LIMITED"
            and e.method == "POST"
            and e.path.endswith(("/animations", "/video-generations", "/animation-exports"))
        ),
    }


async def team_drift(dsn: str, box: SandboxThread, work: Path, start: int | None) -> int | None:
    store = Store(work / "reconcile.db")
    async with PostgresAccount(dsn, store=store, service=box.base_url, member="bench") as admin:
        result = await admin.reconcile(await balance(box) if start is None else start)
    store.close()
    return result["drift"]


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
    parser.add_argument("--jobs", type=int, default=15, help="jobs per member")
    parser.add_argument("--window", type=float, default=5.0)
    parser.add_argument("--task-seconds", type=float, default=0.5)
    parser.add_argument("--timeout", type=float, default=240.0, help="per mode, seconds")
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
    if large and args.jobs == 15:
        args.jobs = 3  # 300 jobs: minutes at the ultra bound
    global LIMITS
    LIMITS = TIERS[args.tier] if args.tier else REGISTERED
    if args.pgbouncer and PGBOUNCER is None:
        raise SystemExit("PgBouncer is needed: apt-get install pgbouncer")
    if binaries() is None:
        raise SystemExit("PostgreSQL (initdb, pg_ctl) is needed: apt-get install postgresql")
    total_started = time.perf_counter()
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="team-bench-") as tmp:
        work = Path(tmp)
        pictures = [big_picture(work / f"pose{p}.png", seed=p) for p in range(PICTURES)]
        cluster = Path(tempfile.mkdtemp(prefix="companion-pg-"))  # its owner must reach it
        server = RealPostgres(binaries(), cluster).init()  # type: ignore[arg-type]
        server.start("log_lock_waits=on", "deadlock_timeout=1ms")
        bouncer = RealPgBouncer(server, cluster / "pgbouncer") if args.pgbouncer else None
        if bouncer is not None:
            bouncer.start()
        try:
            for mode in args.modes.split(","):
                box = sandbox(args)
                try:
                    cost = asyncio.run(price(box, pictures[0], work))
                    budget = int(cost * args.members * args.jobs * 0.8)
                    dsn = server.new_database() if mode == "team" else None
                    member_dsn = bouncer.dsn(dsn) if dsn is not None and bouncer else dsn
                    homes = prepare_members(args, work / mode, pictures, budget, member_dsn)
                    before = asyncio.run(balance(box))
                    assert box.service.journal is not None
                    mark = len(box.service.journal.entries)
                    if dsn is not None:
                        asyncio.run(team_budget(dsn, box, work, budget))
                        asyncio.run(team_drift(dsn, box, work, before))
                    watch = Connections(server, bouncer, dsn) if dsn is not None else None
                    logged = server.log.stat().st_size
                    try:
                        elapsed = run_members(box, homes, args)
                    finally:
                        if watch is not None:
                            watch.stop()
                    results[mode] = figures(box, homes, elapsed, budget, args, mark)
                    if watch is not None:
                        results[mode]["servers"] = watch.most
                        results[mode]["pools"] = watch.pools
                        results[mode]["lock_waits"] = lock_waits(server.log, logged)
                    after = asyncio.run(balance(box))
                    results[mode]["drift"] = (
                        asyncio.run(team_drift(dsn, box, work, after))
                        if dsn is not None
                        else solo_drift(homes, before, after)
                    )
                    results[mode]["budget"] = budget
                    if dsn is not None:
                        results[mode]["database"] = database_cost(dsn)
                finally:
                    box.stop()
        finally:
            if bouncer is not None:
                bouncer.stop()
            server.stop("immediate")
            shutil.rmtree(cluster, ignore_errors=True)
    report(results, args, time.perf_counter() - total_started)


async def team_budget(dsn: str, box: SandboxThread, work: Path, budget: int) -> None:
    store = Store(work / "budget.db")
    async with PostgresAccount(dsn, store=store, service=box.base_url, member="bench") as admin:
        await admin.set_budget("*", budget, None)
    store.close()


def database_cost(dsn: str) -> dict[str, int]:
    """Calls of each team function and transactions in all, as the server counted them."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        calls = dict(
            conn.execute(
                b"SELECT funcname, calls FROM pg_stat_user_functions WHERE schemaname = 'companion'"
            ).fetchall()
        )
        row = conn.execute(
            b"SELECT xact_commit + xact_rollback FROM pg_stat_database "
            b"WHERE datname = current_database()"
        ).fetchone()
    return {**calls, "transactions": int(row[0]) if row else 0}


class Connections:
    """Samples, twice a second while the members run, how many connections PostgreSQL
    serves (pg_stat_activity's client backends, this sampler's own excluded) and, behind
    PgBouncer, its pools."""

    def __init__(self, server: RealPostgres, bouncer: RealPgBouncer | None, dsn: str) -> None:
        self.server = server
        self.bouncer = bouncer
        self.dsn = dsn
        self.most = 0
        self.pools: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import psycopg

        with psycopg.connect(self.server.dsn(), autocommit=True) as conn:
            while not self._stop.wait(0.5):
                row = conn.execute(
                    b"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                    b"AND pid <> pg_backend_pid()"
                ).fetchone()
                self.most = max(self.most, int(row[0]) if row else 0)
                if self.bouncer is not None:
                    name = self.dsn.rsplit("=", 1)[1]
                    for pool in self.bouncer.pools():
                        if pool["database"] != name:
                            continue
                        for key in ("cl_active", "cl_waiting", "sv_active", "sv_idle", "sv_used"):
                            self.pools[key] = max(self.pools.get(key, 0), int(pool[key]))
                        self.pools["maxwait_ms"] = max(
                            self.pools.get("maxwait_ms", 0),
                            int(pool["maxwait"]) * 1000 + int(pool["maxwait_us"]) // 1000,
                        )

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def lock_waits(log: Path, offset: int) -> list[float]:
    """Milliseconds each logged lock wait lasted (waits over deadlock_timeout only)."""
    with log.open("rb") as source:
        source.seek(offset)
        text = source.read().decode(errors="replace")
    return [
        float(m) for m in re.findall(r"acquired \w+ on advisory lock .*? after ([\d.]+) ms", text)
    ]


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


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
