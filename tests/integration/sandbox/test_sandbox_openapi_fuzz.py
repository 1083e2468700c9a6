"""Property-based tests generated from the OpenAPI document: whatever schemathesis sends,
the sandbox answers with a documented status, never a 5xx, and a body that fits the
documented schema."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from companion.api.openapi import build_openapi
from companion.sandbox import SandboxConfig, SandboxThread
from tests.conftest import ROOMY

schema = schemathesis.openapi.from_dict(build_openapi())


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxThread]:
    config = SandboxConfig(
        api_keys=["sk-fuzz"], task_seconds=0.05, limits=ROOMY, credits=10**9, min_retry_after=0
    )
    with SandboxThread(config) as running:
        yield running


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.function_scoped_fixture,
    ],
)
def test_no_5xx_and_responses_fit_the_schema(
    case: schemathesis.Case, sandbox: SandboxThread
) -> None:
    case.call_and_validate(
        base_url=sandbox.base_url,
        headers={"Authorization": "Bearer sk-fuzz"},
        checks=[status_code_conformance, content_type_conformance, response_schema_conformance],
    )
    response = case.call(base_url=sandbox.base_url, headers={"Authorization": "Bearer sk-fuzz"})
    assert response.status_code < 500, (case.method, case.path, response.status_code)
