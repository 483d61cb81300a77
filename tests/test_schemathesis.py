"""Property-based API tests: schemathesis generates requests from /openapi.json for every
operation and checks every response against the schema (status codes, content types, bodies,
no 500s)."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from app.main import app

schema = schemathesis.openapi.from_asgi("/openapi.json", app)


@pytest.fixture(autouse=True)
def _catalog(engine):
    """The migrated, seeded database (conftest) must exist before any request."""


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_schema(case):
    case.call_and_validate()
