"""Routes that return their answer serialized once (app.api.responses.json_answer) send the
bytes FastAPI would send for the same model through the route's response_model, and keep
that model in the OpenAPI document."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, TypeAdapter

from app.main import app
from app.models.break_even import BreakEvenResult
from app.models.carbon import CarbonResult
from app.models.compare import CompareResult, SweepResult
from app.models.electricity import ElectricityResult
from app.models.query import QueryAnswer
from app.models.run_cost import RunCostResult
from app.routers.health import Health
from scripts.loadlib import BREAK_EVEN, RUN_COST
from tests.factories import break_even

SERIALIZED_ONCE = [
    ("GET", "/healthz", Health, None),
    ("POST", "/v1/break-even", BreakEvenResult, break_even()),
    ("POST", "/v1/break-even", BreakEvenResult, BREAK_EVEN),
    ("POST", "/v1/run-cost", RunCostResult, RUN_COST),
    ("POST", "/v1/carbon", CarbonResult, {"gpu": "rtx-3090", "utilization": 0.15, "days": 365}),
    ("POST", "/v1/electricity", ElectricityResult, {"desktop": {"gpu": "rtx-3090"}}),
    ("POST", "/v1/compare", CompareResult, {"workload": {"benchmark": "stylegan_xl"}, "limit": 5}),
    (
        "POST",
        "/v1/break-even/sweep",
        SweepResult,
        {
            "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
            "cloud": {"price_usd_per_hour": 2.14},
            "electricity_prices_usd_per_kwh": [0.12, 1.0],
        },
    ),
    ("GET", "/v1/query?q=break-even%20for%203090%20at%2015%25%20util", QueryAnswer, None),
]


@pytest.mark.parametrize(("method", "url", "model", "body"), SERIALIZED_ONCE)
def test_the_bytes_fastapi_would_send(client, method, url, model: type[BaseModel], body):
    r = client.request(method, url, json=body)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/json"
    assert r.headers["content-length"] == str(len(r.content))
    adapter = TypeAdapter(model)
    # FastAPI's own path: validate the returned object against response_model, then dump.
    answer = adapter.validate_json(r.content)
    assert r.content == adapter.dump_json(answer, by_alias=True)


@pytest.mark.parametrize(("method", "url", "model", "body"), SERIALIZED_ONCE)
def test_response_models_stay_in_the_openapi_document(method, url, model, body):
    operation = app.openapi()["paths"][url.split("?")[0]][method.lower()]
    ok = operation["responses"]["200"]["content"]["application/json"]
    assert ok["schema"] == {"$ref": f"#/components/schemas/{model.__name__}"}
