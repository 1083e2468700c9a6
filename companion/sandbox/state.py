"""Everything the sandbox remembers, and its persistence to one JSON file.

Keys are never stored: a key is known by the SHA-256 of its secret, and its public
identity (AccountAPIKey.id) is derived from that hash so it is stable across restarts.
Writes go to a temporary file renamed over the old one, so a crash never leaves a
half-written state."""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

NAMESPACE = uuid.UUID("5b0c4f0e-8d1c-4b7e-9a43-51d0a7c3e2a1")
IDEMPOTENCY_RETENTION = timedelta(hours=48)  # the spec asks for at least 24


def now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


def key_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def stable_id(*parts: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "\x1f".join(parts)))


@dataclass
class Account:
    id: str
    name: str
    tier: str
    available: int
    status: str = "active"  # active | paused | ineligible | disabled


@dataclass
class ApiKey:
    id: str
    hash: str
    account_id: str
    scopes: list[str]


@dataclass
class FileRecord:
    id: str
    account_id: str
    mime_type: str
    width: int
    height: int
    byte_size: int
    sha256: str
    created_at: str
    path: str
    uploaded: bool = True  # False for inline images persisted at create


@dataclass
class AssetRecord:
    id: str
    account_id: str
    format: str
    mime_type: str
    byte_size: int
    created_at: str
    path: str
    media: dict[str, Any] | None = None
    key_color: list[int] | None = None  # set on alpha_key sources
    preview_key: str | None = None
    preview: dict[str, Any] | None = None  # sheet size and cells of a video_preview


@dataclass
class TaskRecord:
    id: str
    account_id: str
    object: str
    seq: int
    created_at: str
    normalized_input: dict[str, Any]
    metadata: dict[str, Any]
    price_video: int
    price_export: int
    status: str = "queued"
    stage: str = "queued"
    progress: float = 0.0
    started_at: str | None = None
    finished_at: str | None = None
    held: int = 0
    charged: int = 0
    refunded: int = 0
    released: int = 0
    credit_status: str | None = "held"
    error: dict[str, Any] | None = None
    output_ids: list[str] = field(default_factory=list)
    cancel_requested: bool = False
    video_done: bool = False
    inputs: dict[str, Any] = field(default_factory=dict)  # persisted input file ids
    # Face.credits_posted_after: the credit outcome decided at the end, posted later
    # (epoch seconds "at", and the CreditUsage members it sets).
    posting: dict[str, Any] | None = None

    @property
    def quoted(self) -> int:
        return self.price_video + self.price_export

    @property
    def terminal(self) -> bool:
        return self.status in ("succeeded", "failed", "cancelled")


@dataclass
class IdempotencyRecord:
    scope: str
    body_hash: str
    state: str  # in_progress | done
    created_at: str
    task_id: str | None = None


@dataclass
class State:
    secret: str = field(default_factory=lambda: os.urandom(32).hex())
    accounts: dict[str, Account] = field(default_factory=dict)
    keys: dict[str, ApiKey] = field(default_factory=dict)  # by key hash
    files: dict[str, FileRecord] = field(default_factory=dict)
    assets: dict[str, AssetRecord] = field(default_factory=dict)
    tasks: dict[str, TaskRecord] = field(default_factory=dict)
    idempotency: dict[str, IdempotencyRecord] = field(default_factory=dict)
    seq: int = 0

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def to_json(self) -> dict[str, Any]:
        return {
            "secret": self.secret,
            "seq": self.seq,
            "accounts": [asdict(a) for a in self.accounts.values()],
            "files": [asdict(f) for f in self.files.values()],
            "assets": [asdict(a) for a in self.assets.values()],
            "tasks": [asdict(t) for t in self.tasks.values()],
            "idempotency": [asdict(r) for r in self.idempotency.values() if r.state == "done"],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> State:
        state = cls(secret=data["secret"], seq=data.get("seq", 0))
        state.accounts = {a["id"]: Account(**a) for a in data.get("accounts", [])}
        state.files = {f["id"]: FileRecord(**f) for f in data.get("files", [])}
        state.assets = {a["id"]: AssetRecord(**a) for a in data.get("assets", [])}
        state.tasks = {t["id"]: TaskRecord(**t) for t in data.get("tasks", [])}
        horizon = now() - IDEMPOTENCY_RETENTION
        for raw in data.get("idempotency", []):
            record = IdempotencyRecord(**raw)
            if datetime.fromisoformat(record.created_at) >= horizon:
                state.idempotency[record.scope] = record
        return state


class StateFile:
    def __init__(self, path: Path | None) -> None:
        self.path = path

    def load(self) -> State:
        if self.path is None or not self.path.exists():
            return State()
        return State.from_json(json.loads(self.path.read_text()))

    def save(self, state: State) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text(json.dumps(state.to_json()))
        temporary.replace(self.path)
