"""Base classes: requests are strict, responses tolerant.

The service rejects unknown request fields, so our own request models do too (a typo
in an option fails here, not after a paid round trip). Responses keep unknown fields so a
long-lived client keeps working when the service adds members.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, ValidationError

# Both build their validators when first used (defer_build): a command uses a few of the
# schema's models, and building every one on import was a tenth of a second of each start.


class RequestModel(BaseModel):
    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, allow_inf_nan=False, defer_build=True
    )


class ResponseModel(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)


# Tags of the image-input union; pydantic puts the chosen tag into error locations.
UNION_TAGS = frozenset({"file", "base64", "url"})


def error_param(location: Sequence[int | str]) -> str | None:
    """A validation error's location as a dotted parameter path, without union tags:
    ("input", "first_frame", "url", "url") becomes "input.first_frame.url"."""
    parts = [
        str(p) for i, p in enumerate(location) if not (p in UNION_TAGS and i + 1 < len(location))
    ]
    return ".".join(parts) or None


def first_error(exc: ValidationError) -> tuple[str | None, str]:
    """The first error of a validation failure as (parameter, message)."""
    error = exc.errors()[0]
    return error_param(error["loc"]), str(error["msg"]).removeprefix("Value error, ")
