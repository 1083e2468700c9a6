"""What every route shares: the error middleware (a JSON answer for every failure, never
aiohttp's page or a traceback), reading a JSON body against its model, and the prompt
refusal while the service is known away. Handlers raise; only the middleware answers."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from aiohttp import web
from pydantic import BaseModel, ValidationError

from companion.api.errors import ApiStatusError, CompanionApiError
from companion.api.schema.base import first_error
from companion.daemon.errors import Bad, BodyError
from companion.daemon.http.security import MAX_BODY, error
from companion.daemon.reach import Reach, unreachable
from companion.daemon.schema import bodies
from companion.store.errors import TeamUnavailable

log = logging.getLogger("companion.daemon")
Model = TypeVar("Model", bound=BaseModel)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def errors(reach: Callable[[], Reach | None]) -> Callable[..., Awaitable[web.StreamResponse]]:
    """The middleware that turns every failure into the daemon's JSON error; a service
    found away is told to reach (queued work waits, the probe looks for it)."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            return await handler(request)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 413: "TOO_LARGE"}.get(
                exc.status, "BAD_REQUEST"
            )
            return error(exc.status, code, exc.reason)
        except ApiStatusError as exc:
            if exc.status < 500:  # the service refused what was asked: a bad request
                return error(400, "SERVICE_REFUSED", f"the service refused it: {exc}")
            return error(502, "SERVICE_ERROR", f"the service failed: {exc}")
        except CompanionApiError as exc:
            seen = reach()
            if seen is not None and unreachable(exc):
                seen.lost(exc)
            return error(502, "SERVICE_UNREACHABLE", f"the service did not answer: {exc}")
        except TeamUnavailable as exc:  # team mode: nothing is sent without the team's room
            return error(503, "TEAM_UNAVAILABLE", f"{exc}; try again shortly")
        except Bad as bad:
            return bad.response()
        except OSError as exc:  # a project's file that cannot be used (a name too long, a
            # FIFO, a folder where a file was): said with the file, never a 500
            log.warning("%s %s: %s", request.method, request.path, exc)
            where = f"{exc.filename}: " if exc.filename else ""
            return error(409, "UNUSABLE_FILE", f"{where}{exc.strerror or exc}")
        except Exception:  # never aiohttp's page or a traceback: log it, answer JSON
            log.exception("%s %s failed", request.method, request.path)
            return error(500, "INTERNAL", "the daemon failed on this request; see its log")

    return middleware


async def read_body(request: web.Request, model: type[Model], limit: int = MAX_BODY) -> Model:
    """The request's JSON body as model; Bad (415, 413 or 400) otherwise."""
    if request.content_type != "application/json":
        raise Bad(415, "UNSUPPORTED_MEDIA_TYPE", "send application/json")
    try:  # size, depth and count limits: every bad body is a JSON 400
        data = await bodies.decode_async(await request.read(), limit)
    except BodyError as exc:
        raise Bad(413 if exc.code == "TOO_LARGE" else 400, exc.code, str(exc)) from exc
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        param, message = first_error(exc)
        raise Bad(400, "INVALID", f"{param}: {message}" if param else message) from exc


def reachable(reach: Reach | None) -> None:
    """Bad (503) at once, instead of a long wait, while the service is known away."""
    if reach is None or reach.reachable:
        return
    raise Bad(
        503,
        "SERVICE_UNREACHABLE",
        f"the service does not answer ({reach.error}); animate requests are queued "
        "meanwhile and go on when it answers",
    )
