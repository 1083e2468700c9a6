"""How long commands take to answer, against a bare `python -c pass` in the same run.

Two groups, each with its bound:
- read-only commands (`--help`, `jobs list`, `projects list`, `clips`): under 0.3 s;
- commands that start the embedded sandbox (`credits`, `account` with no key): under 1 s.

Every run is a new process in a new, empty COMPANION_HOME with no COMPANION_* variable
set (so no key: the embedded sandbox), as a user's first command is. The commands take
turns run by run, so a change in the machine's load meets them all alike. Bytecode is
written to a folder of the bench's own (PYTHONPYCACHEPREFIX) by one unmeasured run of
each command first: an installed package is compiled once, so compiling is not what a
command costs, even where PYTHONDONTWRITEBYTECODE is set. Prints each command's median
wall time, its ratio to the interpreter's, and whether it is under its bound.

    python bench/cli_startup_bench.py [--runs N]

The package measured is the one on PYTHONPATH when it is set (another checkout's), this
tree's otherwise.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READ_ONLY = 0.3
SANDBOX = 1.0
COMMANDS: dict[str, tuple[list[str], float | None]] = {
    "python -c pass": (["-c", "pass"], None),
    "companion --help": (["-m", "companion", "--help"], READ_ONLY),
    "companion jobs list": (["-m", "companion", "jobs", "list"], READ_ONLY),
    "companion projects list": (["-m", "companion", "projects", "list"], READ_ONLY),
    "companion clips": (["-m", "companion", "clips"], READ_ONLY),
    "companion credits": (["-m", "companion", "credits"], SANDBOX),
    "companion account": (["-m", "companion", "account"], SANDBOX),
}


def environment(scratch: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    env.setdefault("PYTHONPATH", str(ROOT))
    return env


def seconds(arguments: list[str], env: dict[str, str], scratch: Path) -> float:
    """One run in a fresh home; a command that fails stops the bench (its time would
    measure the failure)."""
    home = Path(tempfile.mkdtemp(dir=scratch, prefix="home-"))
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *arguments],
        env={**env, "COMPANION_HOME": str(home)},
        cwd=home,  # `-m` puts the working folder first on sys.path: it must hold no package
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(arguments)} failed ({done.returncode}):\n{done.stderr}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each command (default 15)")
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory(prefix="cli-startup-") as folder:
        scratch = Path(folder)
        env = environment(scratch)
        for arguments, _ in COMMANDS.values():  # writes the bytecode, not measured
            seconds(arguments, env, scratch)
        times: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(runs):
            for name, (arguments, _) in COMMANDS.items():
                times[name].append(seconds(arguments, env, scratch))
    medians = {name: statistics.median(taken) for name, taken in times.items()}
    floor = medians["python -c pass"]
    print(f"median of {runs} runs each, a fresh COMPANION_HOME each run, no key")
    print(f"  package: {env['PYTHONPATH']}; load average {os.getloadavg()[0]:.1f}")
    for name, (_, bound) in COMMANDS.items():
        median = medians[name]
        verdict = "" if bound is None else f"  {'under' if median < bound else 'OVER'} {bound:g} s"
        print(f"  {name:<24} {median:6.3f} s   x{median / floor:5.1f} of python{verdict}")
    missed = [n for n, (_, bound) in COMMANDS.items() if bound is not None and medians[n] >= bound]
    print("every command under its bound" if not missed else f"over the bound: {', '.join(missed)}")


if __name__ == "__main__":
    main()
