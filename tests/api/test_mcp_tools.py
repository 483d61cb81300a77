"""The MCP tools in process (the SDK's in-memory client against the app's MCP server; each
tool call goes through the app as its REST request). Over streamable HTTP against a real
server: ``tests/system/test_mcp.py``."""

from __future__ import annotations

import asyncio
import json

from mcp import Client

from app.main import app
from tests.factories import break_even
from tests.seed_values import SEED_001_DAYS


def _call(name, arguments):
    async def session():
        async with Client(app.state.mcp.server) as client:
            tools = (await client.list_tools()).tools
            return tools, await client.call_tool(name, arguments)

    return asyncio.run(session())


def test_seed_break_even_through_the_tool(client):
    tools, result = _call("break_even", break_even())
    assert {t.name for t in tools} >= {"break_even", "owned_rates", "fleet_plan", "query"}
    # seed 001: $2,200 / ($2.14/h - 0.45 kW x $0.12/kWh) / 3.6 h a day = 292.96 days
    assert result.structured_content["break_even_days"] == round(SEED_001_DAYS, 2)


def test_a_refused_call_is_the_rest_problem(client):
    _, result = _call("owned_rates", {"machines": []})
    assert result.is_error
    problem = json.loads(result.content[0].text)
    rest = client.post("/v1/owned-rates", json={"machines": []}).json()
    assert problem["status"] == rest["status"] == 422
    assert problem["type"] == rest["type"] and problem["title"] == rest["title"]


def test_the_llm_estimate_tool_answers_as_the_endpoint(client):
    body = {"model": "llama-3.1-8b", "task": "lora", "tokens": 1_000_000, "gpus": ["rtx-4090"]}
    tools, result = _call("llm_estimate", body)
    assert "llm_estimate" in {t.name for t in tools}
    rest = client.post("/v1/llm/estimate", json=body).json()
    assert not result.is_error
    got = result.structured_content
    assert got["estimates"][0]["memory_gb_per_gpu"] == rest["estimates"][0]["memory_gb_per_gpu"]


def test_arguments_are_checked_against_the_published_schema(client, monkeypatch):
    """Issue 48: tool arguments were sent on without a look at the tool's input schema. Now
    arguments that break it are a 422 problem naming each error, and no REST request is
    made; valid ones still answer."""
    from app.integrations import mcp_server

    forwarded = []
    real = mcp_server.GpucostTools._forward

    async def spy(self, spec, arguments, request):
        forwarded.append(spec.name)
        return await real(self, spec, arguments, request)

    monkeypatch.setattr(mcp_server.GpucostTools, "_forward", spy)
    for name, arguments, where in (
        ("break_even", {**break_even(), "utilization": "high"}, "utilization"),
        ("query", {"q": "break-even for 3090", "extra": 1}, "arguments"),
        ("query", {}, "arguments"),
        ("llm_estimate", {"model": "llama-3.1-8b", "tokens": [1]}, "tokens"),
    ):
        _, result = _call(name, arguments)
        assert result.is_error, (name, arguments)
        problem = json.loads(result.content[0].text)
        assert problem["status"] == 422 and problem["type"].endswith("/validation-error")
        assert where in problem["detail"]
    assert forwarded == []
    _, result = _call("query", {"q": "break-even for 3090 at 15% util"})
    assert not result.is_error and forwarded == ["query"]
