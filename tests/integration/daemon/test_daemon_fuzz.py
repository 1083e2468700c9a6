"""Property-based requests from the daemon's own OpenAPI document: no 5xx, documented
statuses only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import content_type_conformance, status_code_conformance

from companion.daemon.schema.openapi import daemon_openapi
from companion.sandbox import SandboxConfig, SandboxThread
from tests.conftest import ROOMY, TEST_KEY
from tests.support.daemon import DaemonThread

schema = schemathesis.openapi.from_dict(daemon_openapi()).exclude(path="/api/v1/events")


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonThread]:
    home = tmp_path_factory.mktemp("daemon-fuzz")
    config = SandboxConfig(
        api_keys=[TEST_KEY], task_seconds=0.05, limits=ROOMY, credits=10**9, min_retry_after=0
    )
    with SandboxThread(config) as sandbox:
        running = DaemonThread(Path(home), sandbox.base_url, TEST_KEY).start()
        yield running
        running.stop()


@schema.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.function_scoped_fixture,
    ],
)
def test_daemon_api_never_5xx(case: schemathesis.Case, daemon: DaemonThread) -> None:
    info = daemon.info
    headers = {"Authorization": f"Bearer {info['token']}", "Host": f"127.0.0.1:{info['port']}"}
    response = case.call(base_url=daemon.url, headers=headers)
    assert response.status_code < 500, (
        case.method,
        case.path,
        response.status_code,
        response.text[:300],
    )
    case.validate_response(response, checks=[status_code_conformance, content_type_conformance])
