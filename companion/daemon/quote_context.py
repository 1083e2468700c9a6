"""What a quote is shown with, so a price is never read alone: the balance now and the
budgets it is held to (a job over one waits for approval). And the files a request
names (its picture, a last frame, references), each checked to be a picture inside the
project before anything is priced."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections import OrderedDict
from pathlib import Path

from companion.api.errors import CompanionApiError
from companion.api.schema.images import sniff_image_type
from companion.api.transport import RetryPolicy
from companion.daemon.errors import BadInput, CannotReplace
from companion.daemon.inbox.drops import MAX_IMAGE_BYTES
from companion.daemon.schema.requests import AnimateIn, BudgetOut
from companion.install import confined, read_plain, settable_aside, sha256_of
from companion.jobs import Engine, ImageReadError, decode_whole
from companion.store import day_start

BALANCE_POLICY = RetryPolicy(max_attempts=1, deadline=5.0)  # a quote does not wait on it


async def balance_now(engine: Engine) -> int | None:
    """Credits available, or None when the service does not say promptly."""
    try:
        return (await engine.client.get_credit_balance(BALANCE_POLICY)).available
    except CompanionApiError:
        return None


def budget_for(engine: Engine, credits: int) -> BudgetOut:
    return BudgetOut(
        per_job=engine.budget.per_job,
        per_day=engine.budget.per_day,
        per_month=engine.budget.per_month,
        spent_today=engine.store.charged(since=day_start()),
        over=engine.over_budget(credits),
    )


async def context(engine: Engine, credits: int) -> dict[str, object]:
    budget = await asyncio.to_thread(budget_for, engine, credits)
    return {"balance": await balance_now(engine), "budget": budget.model_dump()}


def picture(root: Path, field: str, relative: str) -> tuple[Path, str]:
    """The file a field names, and its SHA-256: inside the project and a picture the
    service takes, decoded whole (project.godot, an empty .png or one cut short is refused
    here, not by the service or a failed job). Read once: the digest prices it and finds
    an earlier job of it. Blocking: run it off the event loop."""
    path = confined(root, relative)
    if path is None:
        raise BadInput(f"{field}: must be a file inside the project; {relative} is outside it")
    if not path.is_file():
        what = "is a folder" if path.is_dir() else "does not exist"
        raise BadInput(f"{field}: {relative} {what} in the project; give a picture's path")
    size = path.stat().st_size
    if size > MAX_IMAGE_BYTES:
        raise BadInput(
            f"{field}: {relative} is {size} bytes; the service takes at most "
            f"{MAX_IMAGE_BYTES}: save it smaller (nothing was spent)"
        )
    data = read_plain(path, MAX_IMAGE_BYTES)  # swapped for a FIFO since: refused, not waited on
    digest = hashlib.sha256(data).hexdigest()
    _decodes(data, digest, field, relative)
    return path, digest


# Digests of pictures that decoded whole, newest last: quoting a picture, then animating
# it, decodes it once. Keyed by content, so a file changed in place is decoded again.
_DECODED: OrderedDict[str, None] = OrderedDict()
_DECODED_KEPT = 64
_DECODED_LOCK = threading.Lock()


def _decodes(data: bytes, digest: str, field: str, relative: str) -> None:
    with _DECODED_LOCK:
        if digest in _DECODED:
            _DECODED.move_to_end(digest)
            return
    mime = sniff_image_type(data)
    if mime is None:
        what = "is empty" if not data else "is not a PNG, JPEG or WebP image"
        raise BadInput(
            f"{field}: {relative} {what}; name a PNG, JPEG or WebP picture inside the project"
            " (nothing was spent)"
        )
    try:
        decode_whole(data, mime, relative)
    except ImageReadError as exc:
        raise BadInput(f"{field}: {exc} (nothing was spent)") from exc
    with _DECODED_LOCK:  # only a pass is kept
        _DECODED[digest] = None
        while len(_DECODED) > _DECODED_KEPT:
            _DECODED.popitem(last=False)


def extra_images(root: Path, body: AnimateIn) -> tuple[Path | None, list[Path]]:
    """The last frame and the references the request names, each a picture in the project."""

    def one(field: str, relative: str) -> Path:
        return picture(root, field, relative)[0]

    last = one("last_frame_path", body.last_frame_path) if body.last_frame_path else None
    references = [one(f"reference_paths[{n}]", p) for n, p in enumerate(body.reference_paths)]
    return last, references


def agreed(conflicts: list[dict[str, str]]) -> dict[str, str]:
    """The files a request with "replace": true may replace: each as it is now, so a
    file changed again before the install is refused instead. Only plain files are
    hashed (a FIFO would block a worker forever, /dev/zero never ends); anything else, or
    a hidden folder that leads away, is CannotReplace."""
    found: dict[str, str] = {}
    for conflict in conflicts:
        path = Path(conflict["path"])
        try:
            refusal = settable_aside(path)
            if refusal is None:
                found[str(path)] = sha256_of(path)
        except OSError as exc:
            refusal = f"{path} cannot be read ({exc.strerror or exc})"
        if refusal is not None:
            raise CannotReplace(f"{refusal} (nothing was spent)")
    return found
