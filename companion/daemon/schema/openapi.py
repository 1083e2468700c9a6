"""The daemon API's own OpenAPI 3.1 document, generated from its models."""

from __future__ import annotations

from typing import Any

from pydantic.json_schema import models_json_schema

from companion import __version__
from companion.daemon.routes.batch import BatchIn
from companion.daemon.schema.character import CharacterIn, CharacterOut, CharacterQuoteOut
from companion.daemon.schema.quote import QuoteOut
from companion.daemon.schema.requests import (
    AgainIn,
    AnimateIn,
    ContactSheetIn,
    ErrorOut,
    GenerationList,
    ImportIn,
    JobList,
    JobOut,
    ProjectIn,
    ProjectOut,
    ProjectRef,
    RecutIn,
    StatusLinkOut,
    StatusOut,
    VariationsIn,
)

REF = "#/components/schemas/{model}"
# (method, path, operationId, request model, success status, response model or None)
ROUTES: list[tuple[str, str, str, Any, int, Any]] = [
    ("get", "/api/v1/health", "health", None, 200, None),
    ("get", "/api/v1/status", "status", None, 200, StatusOut),
    ("get", "/api/v1/team", "team", None, 200, None),
    ("get", "/api/v1/models", "models", None, 200, None),
    ("get", "/api/v1/projects", "listProjects", None, 200, None),
    ("post", "/api/v1/projects", "addProject", ProjectIn, 201, ProjectOut),
    ("post", "/api/v1/projects/remove", "removeProject", ProjectRef, 200, ProjectOut),
    ("get", "/api/v1/provenance", "listProvenance", None, 200, None),
    ("post", "/api/v1/quote", "quote", AnimateIn, 200, QuoteOut),
    ("post", "/api/v1/animate", "animate", AnimateIn, 202, JobOut),
    ("post", "/api/v1/batch/quote", "quoteBatch", BatchIn, 200, None),
    ("post", "/api/v1/batch", "animateBatch", BatchIn, 202, None),
    ("post", "/api/v1/character/quote", "quoteCharacter", CharacterIn, 200, CharacterQuoteOut),
    ("post", "/api/v1/character", "animateCharacter", CharacterIn, 202, CharacterOut),
    ("get", "/api/v1/jobs", "listJobs", None, 200, JobList),
    ("get", "/api/v1/jobs/{job_id}", "getJob", None, 200, JobOut),
    ("post", "/api/v1/jobs/{job_id}/cancel", "cancelJob", None, 200, JobOut),
    ("post", "/api/v1/jobs/{job_id}/approve", "approveJob", None, 200, JobOut),
    ("post", "/api/v1/jobs/{job_id}/retry", "retryJob", None, 202, JobOut),
    ("get", "/api/v1/generations", "listGenerations", None, 200, GenerationList),
    ("post", "/api/v1/generations/{job_id}/again", "generateAgain", AgainIn, 202, JobOut),
    ("post", "/api/v1/generations/{job_id}/variations", "variations", VariationsIn, 202, None),
    ("post", "/api/v1/generations/{job_id}/recut", "recut", RecutIn, 202, JobOut),
    ("post", "/api/v1/generations/{job_id}/import", "importAgain", ImportIn, 202, JobOut),
    (
        "post",
        "/api/v1/generations/{job_id}/contact_sheet",
        "contactSheet",
        ContactSheetIn,
        200,
        None,
    ),
    ("post", "/api/v1/generations/{job_id}/remove_files", "removeFiles", None, 200, None),
    ("get", "/api/v1/generations/{job_id}/reveal", "reveal", None, 200, None),
    ("post", "/api/v1/status-link", "statusLink", None, 201, StatusLinkOut),
]
ERRORS = {
    "400": "Invalid request",
    "401": "Missing or wrong token",
    "403": "Refused",
    "404": "Not found",
    "409": "Conflict",
    "410": "The kept video is gone (a re-cut needs it; generate again)",
    "413": "Body too large",
    "415": "Not JSON",
    "421": "Host is not localhost",
    "503": "The service does not answer (GET /api/v1/status says since when)",
}


def daemon_openapi() -> dict[str, Any]:
    pairs: list[tuple[Any, Any]] = [(ErrorOut, "serialization")]
    for _, _, _, body, _, reply in ROUTES:
        if body is not None:
            pairs.append((body, "validation"))
        if reply is not None:
            pairs.append((reply, "serialization"))
    refs, defs = models_json_schema(list(dict.fromkeys(pairs)), ref_template=REF)
    paths: dict[str, Any] = {}
    for method, path, name, body, status, reply in ROUTES:
        operation: dict[str, Any] = {
            "operationId": name,
            "security": [] if name == "health" else [{"token": []}],
        }
        if "{job_id}" in path:
            operation["parameters"] = [
                {"name": "job_id", "in": "path", "required": True, "schema": {"type": "string"}}
            ]

        if body is not None:
            operation["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": refs[(body, "validation")]}},
            }
        content = (
            {"application/json": {"schema": refs[(reply, "serialization")]}}
            if reply is not None
            else {"application/json": {"schema": {"type": "object"}}}
        )
        responses: dict[str, Any] = {str(status): {"description": "Success", "content": content}}
        if name == "animate":  # made once: the same request again answers the job that made it
            responses["200"] = {
                "description": "Exactly this was made (or is being made): that job, nothing spent",
                "content": content,
            }
        for code, text in ERRORS.items():
            responses[code] = {
                "description": text,
                "content": {"application/json": {"schema": refs[(ErrorOut, "serialization")]}},
            }
        responses["502"] = {
            "description": "The service failed",
            "content": {"application/json": {"schema": refs[(ErrorOut, "serialization")]}},
        }
        operation["responses"] = responses
        paths.setdefault(path, {})[method] = operation
    paths["/api/v1/events"] = {
        "get": {
            "operationId": "events",
            "security": [{"token": []}],
            "responses": {
                "200": {
                    "description": "Job events",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}},
                }
            },
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "companion daemon",
            "version": __version__,
            "description": "Localhost API for editor plugins. Loopback only; Host must "
            "be localhost or 127.0.0.1 with the port; no browser Origin; Bearer token "
            "from daemon.json.",
        },
        "components": {
            "securitySchemes": {"token": {"type": "http", "scheme": "bearer"}},
            "schemas": defs.get("$defs", {}),
        },
        "paths": paths,
    }
