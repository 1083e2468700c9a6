"""The OpenAPI 3.1 document of the remote API, generated from the schema models."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from companion.api.operations import OPERATIONS, Operation
from companion.api.schema import ErrorEnvelope
from companion.api.schema.requests import IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_MIN

SPEC_VERSION = "1.4.0"
REF = "#/components/schemas/{model}"

_STATUS_TEXT = {
    400: "Invalid request",
    401: "Missing, expired or revoked API key",
    402: "Insufficient credits",
    403: "Not eligible, paused or insufficient scope",
    404: "Not found or not owned",
    409: "Idempotency conflict or in progress",
    413: "Payload too large",
    415: "Unsupported media type",
    422: "Image dimensions too large",
    429: "Rate or queue limit",
    500: "Internal failure",
    503: "Unavailable",
}
_RETRY_AFTER = {
    "description": "Seconds to wait before the next request.",
    "schema": {"type": "integer", "minimum": 0},
}


RefKey = tuple[type[BaseModel], str]


def _component_schemas() -> tuple[dict[Any, Any], dict[str, Any]]:
    pairs: list[tuple[type[BaseModel], Any]] = [(ErrorEnvelope, "serialization")]
    for op in OPERATIONS:
        if op.body is not None:
            pairs.append((op.body, "validation"))
        if op.response is not None:
            pairs.append((op.response, "serialization"))
    unique = list(dict.fromkeys(pairs))
    refs, defs = models_json_schema(unique, ref_template=REF)
    schemas: dict[str, Any] = defs.get("$defs", {})
    return dict(refs), schemas


def _parameters(op: Operation) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": {"type": "string", "format": "uuid"},
        }
        for name in ("job_id", "animation_id", "asset_id")
        if "{" + name + "}" in op.path
    ]
    if op.paginated:
        params += [
            {
                "name": "limit",
                "in": "query",
                "required": False,
                "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
            },
            {
                "name": "cursor",
                "in": "query",
                "required": False,
                "schema": {"type": ["string", "null"]},
            },
        ]
    if op.idempotent_create:
        params.append(
            {
                "name": "Idempotency-Key",
                "in": "header",
                "required": True,
                "schema": {
                    "type": "string",
                    "minLength": IDEMPOTENCY_KEY_MIN,
                    "maxLength": IDEMPOTENCY_KEY_MAX,
                },
            }
        )
    return params


def _operation(op: Operation, refs: dict[RefKey, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = {"operationId": op.name, "summary": op.summary}
    doc["security"] = [{"bearer": []}] if op.scope else []
    if op.scope:
        doc["x-required-scope"] = op.scope
    params = _parameters(op)
    if params:
        doc["parameters"] = params
    if op.multipart_upload:
        doc["requestBody"] = {
            "required": True,
            "content": {
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "required": ["file"],
                        "properties": {"file": {"type": "string", "format": "binary"}},
                    }
                }
            },
        }
    elif op.body is not None:
        doc["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": refs[(op.body, "validation")]}},
        }
    responses: dict[str, Any] = {}
    if op.response is not None:
        success: dict[str, Any] = {
            "description": "Success",
            "content": {"application/json": {"schema": refs[(op.response, "serialization")]}},
        }
        if op.idempotent_create or (op.name.startswith("get_") and op.response.__name__ == "Task"):
            success["headers"] = {"Retry-After": _RETRY_AFTER}
        responses[str(op.success)] = success
    else:
        responses["302"] = {"description": "Redirect to the storage origin"}
        responses["200"] = {
            "description": "The asset bytes",
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
            },
        }
    for status in op.errors:
        error: dict[str, Any] = {
            "description": _STATUS_TEXT[status],
            "content": {"application/json": {"schema": refs[(ErrorEnvelope, "serialization")]}},
        }
        if status in (429, 503):
            error["headers"] = {"Retry-After": _RETRY_AFTER}
        responses[str(status)] = error
    doc["responses"] = responses
    return doc


def build_openapi() -> dict[str, Any]:
    refs, schemas = _component_schemas()
    paths: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        paths.setdefault(op.path, {})[op.method.lower()] = _operation(op, refs)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Animation Generation Service",
            "version": SPEC_VERSION,
            "description": "Generated by `companion openapi` from the companion's schema "
            "models. Unknown request fields are rejected.",
        },
        "servers": [{"url": "http://127.0.0.1:8790/v1", "description": "local sandbox"}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": schemas,
        },
        "paths": paths,
    }


def render_openapi() -> str:
    return json.dumps(build_openapi(), indent=2, sort_keys=True) + "\n"
