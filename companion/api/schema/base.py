"""Base classes: requests are strict, responses tolerant.

The service rejects unknown request fields, so our own request models do too (a typo
in an option fails here, not after a paid round trip). Responses keep unknown fields so a
long-lived client keeps working when the service adds members.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RequestModel(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ResponseModel(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
