"""The gpucost tools for AI assistants: a Model Context Protocol server (the official ``mcp``
SDK, streamable HTTP), served at ``/mcp`` by :class:`app.integrations.mcp_endpoint.McpEndpoint`,
which imports this module (and the SDK) on the first MCP request.

Each tool is one REST operation, and a tool call is that request: its arguments are the
operation's JSON body (its input schema is the request model's JSON Schema), and the call
is sent in process through the whole application (the edge's body checks and rate limits,
the router's validation, the problem+json errors), as the caller (its ``X-API-Key`` header
and client address). A 200 answer is the tool's structured result; any other answer is a
tool error whose text is the problem+json document, as the REST API would have answered.

Sessions are stateless (``stateless=True``, JSON answers): any worker or instance answers
any call, so the server scales out like the REST API.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import mcp_types as types
from jsonschema import Draft202012Validator
from mcp.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel

from app.models.break_even import BreakEvenRequest
from app.models.carbon import CarbonRequest
from app.models.compare import CompareRequest
from app.models.llm import LlmEstimateRequest
from app.models.owned_rates import OwnedRatesRequest
from app.models.plan import PlanRequest
from app.models.run_cost import RunCostRequest
from app.query.vocabulary import MAX_QUERY_CHARS
from app.settings import get_settings

INSTRUCTIONS = (
    "gpucost answers whether a lab should rent GPUs in the cloud or buy a desktop, and what "
    "each run costs, from a dated catalog of cloud prices, GPU specs, electricity prices and "
    "grid carbon intensities. Every answer lists its assumptions and sources: quote them. "
    "Money fields ending in _usd are US dollars; `currency` (ISO 4217) adds *_in_currency "
    "figures. Start with `query` for a plain-language question, or call an operation with "
    "its typed request."
)


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, the REST operation it calls, what it tells an assistant, and the
    JSON Schema of its arguments."""

    name: str
    method: str
    path: str
    title: str
    description: str
    schema: Mapping[str, Any]
    read_only: bool = True


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema.setdefault("type", "object")
    return schema


QUERY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "q": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_QUERY_CHARS,
            "description": "The question, e.g. `break-even for 3090 at 15% util vs aws spot "
            "v100` or `cost of stylegan_xl on an A100`.",
        }
    },
    "required": ["q"],
    "additionalProperties": False,
}

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "break_even",
        "POST",
        "/v1/break-even",
        "Desktop vs cloud break-even",
        "After how many days does buying a GPU desktop beat renting a cloud GPU? Give the "
        "desktop (catalog GPU id or name, or its price and power), the cloud side (a catalog "
        "offer_id or a price per hour), utilization (fraction of the day busy) and "
        "electricity price or region. Answers break_even_days (null with a reason when the "
        "desktop never pays back), both sides' daily and yearly cost, energy and CO2e, TCO "
        "with resale, and the assumptions and sources behind every default.",
        _schema(BreakEvenRequest),
    ),
    ToolSpec(
        "run_cost",
        "POST",
        "/v1/run-cost",
        "Cost of one run on each option",
        "What does one run of a workload cost on each option (cloud offers, desktops)? Give "
        "a benchmark id or a runtime on a reference GPU and the options. Answers each "
        "option's runtime, billed time, cost per run (desktop: electricity and fully loaded "
        "with the purchase amortized), energy and CO2e.",
        _schema(RunCostRequest),
    ),
    ToolSpec(
        "carbon",
        "POST",
        "/v1/carbon",
        "Energy and emissions",
        "Energy (kWh) and emissions (kg CO2e) of GPU work: GPUs, their power, busy hours, "
        "PUE and the grid's carbon intensity (a region id, or given).",
        _schema(CarbonRequest),
    ),
    ToolSpec(
        "compare",
        "POST",
        "/v1/compare",
        "Rank every option for a workload",
        "Rank every cloud offer and desktop build in the catalog for one workload (runs or "
        "GPU-hours a month over a horizon): total cost, cost per run, CO2e and break-even, "
        "cheapest first, with filters (providers, GPUs, memory, price).",
        _schema(CompareRequest),
        read_only=True,
    ),
    ToolSpec(
        "fleet_plan",
        "POST",
        "/v1/plan",
        "Own the base, rent the peak",
        "Plan a lab's GPU fleet month by month: which desktops to buy when and what to rent "
        "for the peaks (a mixed-integer programme), against all-cloud and all-desktop, with "
        "a budget, machine and power limits.",
        _schema(PlanRequest),
    ),
    ToolSpec(
        "owned_rates",
        "POST",
        "/v1/owned-rates",
        "Owned GPUs priced per GPU-hour",
        "The fully-loaded cost of one GPU-hour of GPUs the lab owns: purchase net of resale "
        "over the busy hours it serves, electricity at the utilization, and overhead. The "
        "rates SkyPilot (kubernetes.pricing.accelerators) and OpenCost (custom GPU price) "
        "need; the REST endpoint's ?format=skypilot|opencost writes their config.",
        _schema(OwnedRatesRequest),
    ),
    ToolSpec(
        "llm_estimate",
        "POST",
        "/v1/llm/estimate",
        "Size a language-model job on each GPU",
        "Memory, fit, time and cost of a language-model job (pretrain, full fine-tune, LoRA, "
        "QLoRA or inference) from the model alone: a catalog model id (e.g. "
        "`llama-3.1-8b`; GET /v1/llm/models lists them) or its architecture numbers, a "
        "precision and a token count. Answers per GPU: memory per GPU with its breakdown, "
        "whether it fits on gpu_count, GPUs needed, runtime and tokens/s, and the rented and "
        "owned cost, with every assumption (MFU, checkpointing, optimizer) and its source.",
        _schema(LlmEstimateRequest),
        read_only=True,
    ),
    ToolSpec(
        "query",
        "GET",
        "/v1/query",
        "Answer a question in plain language",
        "Answer a plain-language question about GPU costs (break-even, run cost, cost per "
        "batch item, carbon, offers, GPU facts). Answers a one-line headline, key facts, the "
        "typed request it ran (call the matching tool with it to refine), the defaults "
        "applied and the engine's result; answered is false with suggestions when the "
        "question is not understood.",
        QUERY_SCHEMA,
    ),
)
_BY_NAME = {t.name: t for t in TOOLS}


def _tool(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=dict(spec.schema),
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )


class GpucostTools:
    """The MCP server's two handlers: the tool list (:data:`TOOLS`) and a tool call, sent as
    its REST request through ``app`` (the whole gpucost application, in process)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_tool(t) for t in TOOLS])

    async def call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        spec = _BY_NAME.get(params.name)
        if spec is None:
            return _error({"type": "about:blank", "title": "Not Found", "status": 404,
                           "detail": f"no tool is called {params.name!r}"})  # fmt: skip
        arguments = dict(params.arguments or {})
        invalid = _invalid(spec, arguments)
        if invalid is not None:
            return _error(invalid)
        response = await self._forward(spec, arguments, ctx.request)
        try:
            answer = response.json()
        except ValueError:
            answer = {"status": response.status_code, "detail": response.text[:2000]}
        if response.status_code != 200:
            return _error(answer)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(answer))],
            structured_content=answer,
        )

    async def _forward(
        self, spec: ToolSpec, arguments: dict[str, Any], request: Any
    ) -> httpx.Response:
        """The REST request of a tool call, through the whole app, as the MCP caller."""
        headers = {}
        client = ("127.0.0.1", 0)
        if request is not None:
            key = request.headers.get("x-api-key")
            if key:
                headers["x-api-key"] = key
            if request.client is not None:
                client = (request.client.host, request.client.port)
        transport = httpx.ASGITransport(app=self.app, client=client)
        async with httpx.AsyncClient(transport=transport, base_url="http://gpucost") as http:
            if spec.method == "GET":
                return await http.get(spec.path, params=arguments, headers=headers)
            return await http.post(spec.path, json=arguments, headers=headers)


_VALIDATORS: dict[str, Draft202012Validator] = {}


def _invalid(spec: ToolSpec, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The 422 problem of ``arguments`` that break ``spec``'s published input schema (JSON
    Schema 2020-12, as the MCP specification's tools section says a server validates them),
    listing each error with its path; None when they are valid. The REST operation validates
    them again with the request model (same rules, plus cross-field ones)."""
    validator = _VALIDATORS.get(spec.name)
    if validator is None:
        validator = _VALIDATORS[spec.name] = Draft202012Validator(dict(spec.schema))
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    listed = [{"loc": ["arguments", *e.absolute_path], "msg": e.message[:300]} for e in errors[:20]]
    return {
        "type": "https://gpucost.dev/problems/validation-error",
        "title": "Request validation failed",
        "status": 422,
        "detail": "; ".join(
            f"{'.'.join(str(p) for p in x['loc'])}: {x['msg']}" for x in listed[:5]
        ),
        "errors": listed,
    }


def _error(problem: Mapping[str, Any]) -> types.CallToolResult:
    """A tool error carrying the REST API's problem+json document."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(problem))],
        structured_content=dict(problem),
        is_error=True,
    )


def build_server(app: Any) -> Server[Any]:
    """The gpucost MCP server: :data:`TOOLS`, each call sent through ``app``."""
    tools = GpucostTools(app)
    return Server(
        "gpucost",
        title="gpucost",
        instructions=INSTRUCTIONS,
        on_list_tools=tools.list_tools,
        on_call_tool=tools.call_tool,
    )


def session_manager(server: Server[Any]) -> StreamableHTTPSessionManager:
    """A streamable-HTTP session manager for ``server``: stateless, JSON answers (any worker
    answers any call), and the SDK's DNS-rebinding protection on (``Host`` and ``Origin``
    checked against the settings' ``mcp_allowed_hosts`` and ``mcp_allowed_origins``: 421 and
    403 otherwise). The SDK's manager runs once: one per start of the application."""
    settings = get_settings()
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(settings.mcp_allowed_hosts),
        allowed_origins=list(settings.mcp_allowed_origins),
    )
    return StreamableHTTPSessionManager(
        app=server, stateless=True, json_response=True, security_settings=security
    )
