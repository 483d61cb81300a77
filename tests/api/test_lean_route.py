"""The lean path of the calculations (app.api.lean): a plain request is answered without
FastAPI's dependency walk, and its answer, good or bad, is the one FastAPI's own path gives.

A request with any query string goes down FastAPI's own path (``?trace=1``: a parameter no
operation declares, which FastAPI ignores), so each case below is sent both ways and the two
answers compared, byte for byte but for the request id."""

from __future__ import annotations

import pytest
from fastapi.routing import APIRoute

from app.api import deps
from app.api.lean import LeanRoute, plan
from app.main import app
from app.routers import calc, compare, health, llm
from app.settings import Settings, get_settings
from scripts.loadlib import BREAK_EVEN, RUN_COST

LEAN_OPERATIONS = {
    ("POST", "/v1/break-even"),
    ("POST", "/v1/run-cost"),
    ("POST", "/v1/carbon"),
    ("POST", "/v1/electricity"),
    ("POST", "/v1/llm/estimate"),
    ("GET", "/healthz"),  # no body, no parameter, no dependency
    ("GET", "/v1/llm/models"),  # no body, the catalog view
}

GOOD = [
    ("/v1/break-even", BREAK_EVEN),
    ("/v1/run-cost", RUN_COST),
    ("/v1/carbon", {"gpu": "rtx-3090", "utilization": 0.15, "days": 365}),
    ("/v1/electricity", {"desktop": {"gpu": "rtx-3090"}}),
    ("/v1/llm/estimate", {"model": "llama-3.1-8b", "task": "lora", "tokens": 2e8}),
]

# Bodies FastAPI refuses: out of bounds, the wrong type, missing fields, not an object.
BAD = [
    ("/v1/break-even", b'{"desktop": {"gpu": "rtx-3090"}, "cloud": {}, "utilization": 2}'),
    ("/v1/break-even", b'{"desktop": {"gpu": "rtx-3090"}}'),
    ("/v1/break-even", b'{"desktop": 1, "cloud": "x"}'),
    ("/v1/break-even", b"[1, 2]"),
    ("/v1/break-even", b'"text"'),
    ("/v1/break-even", b"{not json"),
    ("/v1/break-even", b""),
    ("/v1/break-even", b'{"desktop":' + b'{"x":' * 3000 + b"1" + b"}" * 3001),  # too deep
    ("/v1/carbon", b'{"gpu": "rtx-3090", "utilization": -1}'),
    ("/v1/llm/estimate", b'{"model": "llama-3.1-8b", "tokens": 0}'),
    # Valid bodies the use case refuses (a domain error: the problem handlers' answer).
    ("/v1/break-even", b'{"desktop": {"gpu": "no-such-gpu"}, "cloud": {"offer_id": "x"}}'),
]


def _without_request_id(headers) -> dict[str, str]:
    drop = {"x-request-id", "server-timing", "x-ratelimit-remaining", "x-ratelimit-reset"}
    return {k: v for k, v in headers.items() if k not in drop}


def _both_ways(client, path: str, content: bytes):
    headers = {"content-type": "application/json"}
    lean = client.post(path, content=content, headers=headers)
    full = client.post(f"{path}?trace=1", content=content, headers=headers)
    return lean, full


def test_the_calculations_and_only_they_are_lean() -> None:
    found = set()
    for router in (calc.router, llm.router, compare.router, health.router):
        for route in router.routes:
            if isinstance(route, APIRoute) and plan(route) is not None:
                found |= {(method, route.path) for method in route.methods}
    assert found == LEAN_OPERATIONS
    # The compare takes the render gate (a dependency with dependencies): FastAPI's path.
    assert not any(isinstance(r, LeanRoute) for r in compare.router.routes)


@pytest.mark.parametrize(("path", "body"), GOOD)
def test_a_plain_answer_is_fastapis_answer(client, path, body) -> None:
    import json

    lean, full = _both_ways(client, path, json.dumps(body).encode())
    assert lean.status_code == full.status_code == 200, lean.text
    assert lean.content == full.content
    assert _without_request_id(lean.headers) == _without_request_id(full.headers)


@pytest.mark.parametrize(("path", "content"), BAD)
def test_a_refusal_is_fastapis_refusal(client, path, content) -> None:
    lean, full = _both_ways(client, path, content)
    assert 400 <= lean.status_code < 500, lean.text
    assert lean.status_code == full.status_code
    assert lean.json() == full.json()
    assert lean.headers["content-type"] == "application/problem+json"


def test_a_validation_refusal_names_the_body_field(client) -> None:
    lean, _ = _both_ways(client, "/v1/carbon", b'{"gpu": "rtx-3090", "utilization": -1}')
    assert lean.status_code == 422
    assert lean.json()["errors"][0]["loc"] == ["body", "utilization"]


def test_an_override_of_a_dependency_is_called_on_the_lean_path(client) -> None:
    """A settings override (as the tests use) holds on the lean path: here a price age limit
    of one day, so the seed's 2020 prices are each named in the answer's warnings."""
    strict = Settings(**{**get_settings().model_dump(), "price_max_age_days": 1})
    calls = []

    def settings() -> Settings:
        calls.append(1)
        return strict

    app.dependency_overrides[deps.settings] = settings
    try:
        r = client.post("/v1/break-even", json=BREAK_EVEN)
    finally:
        del app.dependency_overrides[deps.settings]
    assert r.status_code == 200, r.text
    assert calls == [1]
    assert r.json()["prices"]["max_age_days"] == 1
    assert any("2020-" in w for w in r.json()["warnings"])


def test_an_override_that_needs_arguments_takes_fastapis_path(client) -> None:
    """An override whose parameters FastAPI must solve (here a query parameter) is not
    called bare: the request goes down FastAPI's path, which asks for the parameter."""

    def settings(limit_days: int) -> Settings:
        return Settings(**{**get_settings().model_dump(), "price_max_age_days": limit_days})

    app.dependency_overrides[deps.settings] = settings
    try:
        missing = client.post("/v1/break-even", json=BREAK_EVEN)
        given = client.post("/v1/break-even?limit_days=2", json=BREAK_EVEN)
    finally:
        del app.dependency_overrides[deps.settings]
    assert missing.status_code == 422
    assert missing.json()["errors"][0]["loc"] == ["query", "limit_days"]
    assert given.status_code == 200
    assert given.json()["prices"]["max_age_days"] == 2


def test_as_of_goes_down_fastapis_path_and_is_validated_there(client) -> None:
    bad = client.post("/v1/break-even?as_of=0", json=BREAK_EVEN)
    assert bad.status_code == 422
    assert bad.json()["errors"][0]["loc"] == ["query", "as_of"]
    dated = client.post("/v1/break-even?as_of=2020-09-24", json=BREAK_EVEN)
    assert dated.status_code == 200
    assert dated.json()["prices"]["prices_as_of"] == "2020-09-24"


@pytest.fixture
def walks(monkeypatch) -> list[str]:
    """The endpoints whose dependency graph FastAPI walked (``solve_dependencies``), in order."""
    import fastapi.routing

    walked: list[str] = []
    solve = fastapi.routing.solve_dependencies

    async def counted(*args, **kwargs):
        walked.append(kwargs["dependant"].call.__name__)
        return await solve(*args, **kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counted)
    return walked


def test_a_plain_request_skips_the_dependency_walk(client, walks) -> None:
    assert client.post("/v1/break-even", json=BREAK_EVEN).status_code == 200
    assert walks == []
    assert client.post("/v1/break-even?trace=1", json=BREAK_EVEN).status_code == 200
    assert walks == ["compute_break_even"]


@pytest.mark.parametrize(
    ("path", "endpoint"), [("/healthz", "get_health"), ("/v1/llm/models", "list_llm_models")]
)
def test_an_answer_without_a_body_is_fastapis_answer(client, walks, path, endpoint) -> None:
    lean, full = client.get(path), client.get(f"{path}?trace=1")
    assert walks == [endpoint]  # only the request with a query string walked
    assert lean.status_code == full.status_code == 200
    assert lean.content == full.content and len(lean.content) > 20
    assert _without_request_id(lean.headers) == _without_request_id(full.headers)
