"""Request bodies as JSON, parsed within limits: size, nesting depth and number of values.

Python's decoder recurses once per level, so 200 KB of `[[[[` ends in a RecursionError
(a 500) and a few thousand nested objects pass the decoder only to weigh on validation.
Every body is measured before it is validated; every refusal names the limit and what to
send instead, as a JSON 400."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from companion.daemon.errors import BodyError

MAX_DEPTH = 32  # the deepest legitimate body (export options in defaults) is under 8
MAX_VALUES = 100_000  # arrays, objects, and scalars in all
SMALL_BODY = 256 * 1024  # a project's registration: settings, never an image
THREAD_ABOVE = 256 * 1024  # larger bodies are decoded off the event loop


def decode(raw: bytes, limit: int) -> Any:
    """The JSON value in raw, or BodyError saying which limit it broke."""
    if len(raw) > limit:
        raise BodyError("TOO_LARGE", f"this body may be at most {limit} bytes")
    try:
        value = json.loads(raw or b"null")
    except RecursionError as exc:
        raise BodyError(
            "TOO_DEEP", f"the body nests deeper than {MAX_DEPTH} levels; send flat JSON"
        ) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise BodyError("BAD_JSON", "the body is not valid JSON") from exc
    _measure(value)
    return value


async def decode_async(raw: bytes, limit: int) -> Any:
    if len(raw) > THREAD_ABOVE:
        return await asyncio.to_thread(decode, raw, limit)
    return decode(raw, limit)


def _measure(value: Any) -> None:
    """Walk the value without recursion; refuse it past MAX_DEPTH or MAX_VALUES."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    count = 0
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > MAX_VALUES:
            raise BodyError("TOO_MANY_VALUES", f"the body holds more than {MAX_VALUES} values")
        if depth > MAX_DEPTH:
            raise BodyError(
                "TOO_DEEP", f"the body nests deeper than {MAX_DEPTH} levels; send flat JSON"
            )
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
