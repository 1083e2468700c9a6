"""Start-up time of `companion --help`, against two baselines measured in the same run.

- `python -c pass`: the interpreter alone, the floor any command pays;
- the eager import the command line did before it imported lazily: the client, the
  media engine, the schema, the job engine and rich, all loaded before parsing.

Each command runs N times in a fresh process; the median wall time is reported with
its ratio to each baseline. The goal: `--help` under 0.3 s.

    python bench/cli_startup_bench.py [--runs N]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import time

EAGER_MODULES = [
    "companion.api.client",
    "companion.api.schema",
    "companion.media",
    "companion.jobs.engine",
    "companion.settings.endpoint",
]
if importlib.util.find_spec("rich") is not None:  # the progress bar it drew then
    EAGER_MODULES.append("rich.progress")
EAGER = "import " + ", ".join(EAGER_MODULES)


def median_seconds(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    python = sys.executable
    measured = {
        "python -c pass": median_seconds([python, "-c", "pass"], runs),
        "eager imports (before)": median_seconds([python, "-c", EAGER], runs),
        "companion --help (now)": median_seconds([python, "-m", "companion", "--help"], runs),
        "companion animate --help": median_seconds(
            [python, "-m", "companion", "animate", "--help"], runs
        ),
    }
    floor = measured["python -c pass"]
    eager = measured["eager imports (before)"]
    print(f"median of {runs} runs each")
    for name, seconds in measured.items():
        print(
            f"  {name:<26} {seconds * 1000:7.1f} ms   x{seconds / floor:5.2f} of python, "
            f"x{seconds / eager:5.2f} of the eager import"
        )
    now = measured["companion --help (now)"]
    print(f"--help {'meets' if now < 0.3 else 'MISSES'} the 0.3 s goal ({now:.3f} s)")


if __name__ == "__main__":
    main()
