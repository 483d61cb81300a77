"""The MCP server at ``/mcp``, driven by the official SDK's client over streamable HTTP
against a real ``gpucost serve``: the tools are listed, seed 001's break-even answers its
292.96 days (Tim Dettmers, 2020-09-07), and a tool call is a REST request (the same
problem+json refusals and rate limits)."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp import Client

from tests.factories import break_even
from tests.seed_values import SEED_001_DAYS
from tests.servers import seeded_sqlite, uvicorn

pytestmark = pytest.mark.e2e
TOOLS = {
    "break_even",
    "run_cost",
    "carbon",
    "compare",
    "fleet_plan",
    "owned_rates",
    "llm_estimate",
    "query",
}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return seeded_sqlite(tmp_path_factory.mktemp("mcp"))


def run(coro):
    return asyncio.run(coro)


def test_tools_and_the_seed_break_even(env):
    async def session(url):
        async with Client(url) as client:
            tools = (await client.list_tools()).tools
            result = await client.call_tool("break_even", break_even())
            bad = await client.call_tool("break_even", break_even(utilization=2))
            asked = await client.call_tool("query", {"q": "break-even for 3090 at 15% util"})
            return tools, result, bad, asked

    with uvicorn(env) as base:
        tools, result, bad, asked = run(session(f"{base}/mcp"))
    assert {t.name for t in tools} >= TOOLS
    by_name = {t.name: t for t in tools}
    # each tool's arguments are the REST request's schema
    assert "desktop" in by_name["break_even"].input_schema["properties"]
    assert all(t.description for t in tools)
    assert not result.is_error
    assert result.structured_content["break_even_days"] == round(SEED_001_DAYS, 2) == 292.96
    # a refusal is the REST API's problem+json document
    assert bad.is_error
    problem = json.loads(bad.content[0].text)
    assert problem["status"] == 422 and problem["type"].startswith("https://")
    assert not asked.is_error and asked.structured_content["answered"] is True


def test_a_tool_call_is_a_rate_limited_request(env):
    """A tool call is counted twice against the caller's general budget: the `/mcp` request
    and the REST request it is sent as (issue 48: `/mcp` itself was not counted). Past the
    budget the caller is refused: the tool call's REST request answered 429 (a tool error
    carrying the problem), or the `/mcp` request itself (the client sees an HTTP 429)."""
    limited = {**env, "GPUCOST_RATE_LIMIT_ANONYMOUS": "5/hour"}

    async def session(url):
        results = []
        async with Client(url) as client:
            for _ in range(6):
                try:
                    results.append(await client.call_tool("carbon", {"gpu": "t4", "hours": 1}))
                except Exception as exc:  # noqa: BLE001 - the /mcp request itself refused
                    results.append(exc)
                    break
        return results

    with uvicorn(limited) as base:
        try:
            results = run(session(f"{base}/mcp"))
        except BaseException as exc:  # noqa: BLE001 - refused while the session closed
            results = [exc]
    answered = [r for r in results if not isinstance(r, BaseException) and not r.is_error]
    refused = [
        json.loads(r.content[0].text)["status"] if not isinstance(r, BaseException) else repr(r)
        for r in results
        if isinstance(r, BaseException) or r.is_error
    ]
    # Five an hour (a window no test run crosses enough to decay a count): the session's two set-up requests, then each call's /mcp and REST
    # requests; the second call's REST request is the sixth: a tool error with the 429.
    assert len(answered) == 1, results
    assert refused and refused[0] == 429, refused
