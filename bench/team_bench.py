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

    python bench/team_bench.py [--members 4] [--jobs 15] [--window 5] [--task-seconds 0.5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.api.client import Client  # noqa: E402
from companion.sandbox import Limits, SandboxConfig, SandboxThread  # noqa: E402
from companion.store import Store  # noqa: E402
from companion.store.team import PostgresAccount  # noqa: E402
from tests.real_postgres import RealPostgres, binaries  # noqa: E402
from tests.team_helpers import animation_request, big_picture  # noqa: E402

REGISTERED = Limits(concurrency=1, queue=3, create_per_minute=3, other_per_minute=60)
PICTURES = 5


def sandbox(args: argparse.Namespace) -> SandboxThread:
    return SandboxThread(
        SandboxConfig(
            api_keys=[f"studio:sk-m{n}" for n in range(args.members)],
            limits=REGISTERED,
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
            stderr=subprocess.DEVNULL,
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
    for process in processes:
        try:
            process.wait(timeout=max(1.0, deadline - time.perf_counter()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
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
    bound = min(REGISTERED.create_per_minute / args.window, 1 / args.task_seconds)
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
    parser.add_argument("--modes", default="team,alone", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if binaries() is None:
        raise SystemExit("PostgreSQL (initdb, pg_ctl) is needed: apt-get install postgresql")
    total_started = time.perf_counter()
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="team-bench-") as tmp:
        work = Path(tmp)
        pictures = [big_picture(work / f"pose{p}.png", seed=p) for p in range(PICTURES)]
        cluster = Path(tempfile.mkdtemp(prefix="companion-pg-"))  # its owner must reach it
        server = RealPostgres(binaries(), cluster).init()  # type: ignore[arg-type]
        server.start()
        try:
            for mode in args.modes.split(","):
                box = sandbox(args)
                try:
                    cost = asyncio.run(price(box, pictures[0], work))
                    budget = int(cost * args.members * args.jobs * 0.8)
                    dsn = server.new_database() if mode == "team" else None
                    homes = prepare_members(args, work / mode, pictures, budget, dsn)
                    before = asyncio.run(balance(box))
                    assert box.service.journal is not None
                    mark = len(box.service.journal.entries)
                    if dsn is not None:
                        asyncio.run(team_budget(dsn, box, work, budget))
                        asyncio.run(team_drift(dsn, box, work, before))
                    elapsed = run_members(box, homes, args)
                    results[mode] = figures(box, homes, elapsed, budget, args, mark)
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


def report(results: dict[str, dict[str, Any]], args: argparse.Namespace, total: float) -> None:
    bound = min(REGISTERED.create_per_minute / args.window, 1 / args.task_seconds)
    budget = next(iter(results.values()))["budget"]
    print(
        f"{args.members} companions x {args.jobs} jobs, one sandbox account at the registered "
        f"limits, window compressed to {args.window:g} s, tasks {args.task_seconds:g} s; "
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
    print(f"  whole bench: {total:.0f} s")


if __name__ == "__main__":
    main()
