"""What the route groups use of the daemon that serves them, so that each group depends on
this face and not on the module that puts the daemon together (no import circle)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from aiohttp import web

    from companion.daemon.http.events import Broker
    from companion.daemon.reach import Reach
    from companion.daemon.schema.requests import AnimateIn, JobOut
    from companion.jobs import Engine, JobRequest
    from companion.store import Job, Store


class Prepared(NamedTuple):
    """A paid job that passed every check and is not made yet (nothing is spent)."""

    request: JobRequest
    name: str
    target: Path


class Earlier(NamedTuple):
    """An earlier job of exactly this request that answers it instead (nothing is spent):
    status 202 when it was paid for and its outputs go in again now, 200 otherwise."""

    job: Job
    status: int


class Host(Protocol):
    @property
    def engine(self) -> Engine: ...
    @property
    def store(self) -> Store: ...
    @property
    def home(self) -> Path: ...
    @property
    def sandbox(self) -> bool: ...
    @property
    def service_label(self) -> str: ...
    @property
    def broker(self) -> Broker: ...
    @property
    def reach(self) -> Reach | None: ...

    def enqueue(self, job: Job) -> None: ...
    def changed(self, job: Job) -> None: ...
    def job_out(self, job: Job) -> JobOut: ...
    async def watch(self, project: dict[str, Any]) -> None: ...
    async def unwatch(self, root: str) -> None: ...
    async def digest(self, body: AnimateIn) -> str: ...
    async def quote_reply(self, body: AnimateIn, new_seed: bool = ...) -> dict[str, Any]: ...
    async def submit_animate(
        self, body: AnimateIn, lineage: dict[str, str] | None = None
    ) -> web.Response: ...
    async def prepare_animate(
        self, body: AnimateIn, lineage: dict[str, str] | None = None
    ) -> Prepared | Earlier: ...
    def start_animate(self, ready: Prepared, approved: bool = False) -> Job: ...
    def engine_refusal(self, engine: str, root: Path, target: Path) -> str | None: ...
