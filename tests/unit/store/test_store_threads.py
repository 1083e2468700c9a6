"""The store read from several threads at once (the daemon's event loop and its worker
threads): every read after a write sees that write."""

from __future__ import annotations

import threading
from pathlib import Path

from companion.store import Store


def test_reads_from_many_threads_never_go_stale(tmp_path: Path) -> None:
    store = Store(tmp_path / "companion.db")
    first = store.add_job("animation", "first", {"drop_hash": "h"})
    stop = threading.Event()
    errors: list[str] = []

    def read() -> None:
        while not stop.is_set():
            store.job(first.id)
            store.jobs_with("drop_hash", "h")
            store.assets(first.id)

    def write() -> None:
        try:
            for i in range(150):
                job = store.add_job("animation", f"job{i}", {"drop_hash": "h"})
                store.update_job(job.id, state="quoted")
                if store.job(job.id).state != "quoted":
                    errors.append(f"job{i} read stale")
        except KeyError as exc:
            errors.append(f"a job just added was not found: {exc}")
        finally:
            stop.set()

    threads = [threading.Thread(target=read) for _ in range(2)]
    threads.append(threading.Thread(target=write))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    assert errors == []


CLOSE_UNDER_WORK = """
import sys, threading, time
from pathlib import Path
from companion.store import Store

store = Store(Path(sys.argv[1]))
job = store.add_job("animation", "hero", {})
started = threading.Event()
outcome = []

def progress() -> None:
    # what the engine's progress callback does on a worker thread
    try:
        for i in range(1_000_000):
            store.update_job(job.id, progress=i / 1_000_000)
            started.set()
    except Exception as exc:  # noqa: BLE001 - the type is what the test reads
        outcome.append(type(exc).__name__)

workers = [threading.Thread(target=progress) for _ in range(3)]
for worker in workers:
    worker.start()
started.wait()
for _ in range(3):
    time.sleep(0.02)
store.close()
for worker in workers:
    worker.join()
print(",".join(outcome))
"""


def test_closing_while_a_worker_writes_never_crashes(tmp_path: Path) -> None:
    """`companion animate --timeout` closed the store while a progress write was inside
    a transaction on another thread: the process died of SIGSEGV."""
    import subprocess
    import sys

    for attempt in range(3):
        done = subprocess.run(
            [sys.executable, "-c", CLOSE_UNDER_WORK, str(tmp_path / f"c{attempt}.db")],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip() == "StoreClosed,StoreClosed,StoreClosed"
