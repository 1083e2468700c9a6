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
