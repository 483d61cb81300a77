"""Property-based API tests: schemathesis generates requests from /openapi.json for every
operation and checks every response against the schema (status codes, content types, bodies,
no 500s)."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from app.main import app

schema = schemathesis.openapi.from_asgi("/openapi.json", app)


@pytest.fixture(autouse=True)
def _catalog(engine):
    """The migrated, seeded database (conftest) must exist before any request."""


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_schema(case):
    excluded = []
    body = case.body if isinstance(case.body, dict) else {}
    workload = body.get("workload") if isinstance(body.get("workload"), dict) else {}
    if case.path == "/v1/llm/estimate" or "llm" in workload:
        # Issue 33 asks for a 422 for an unknown model name, a precision the task cannot run
        # in and a sequence longer than the model's context: catalog facts no JSON Schema can
        # state, so schema-valid LLM bodies are rightly refused. Every other check still runs.
        excluded.append(positive_data_acceptance)
    if case.path == "/v1/chargeback" or (
        case.path == "/v1/owned-rates/skypilot-slurm" and not body.get("machines")
    ):
        # Machines left out come from the server's machines file, which the test server has
        # not: 422, as for a chargeback's export header, time zone or period order (text no
        # JSON Schema states; schemathesis.toml says the same for `make contract`).
        excluded.append(positive_data_acceptance)
    case.call_and_validate(excluded_checks=excluded)


# Stateful: schemathesis chains operations through OpenAPI links (inferred from the schema,
# e.g. an offer listed by `catalog-list_cloud_offers` fetched by `catalog-get_cloud_offer`).
APIWorkflow = schema.as_state_machine()
APIWorkflow.TestCase.settings = settings(
    max_examples=10,
    stateful_step_count=5,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)


@pytest.mark.usefixtures("engine")
class TestStateful(APIWorkflow.TestCase):
    pass
