"""Saved scenarios for budgeting tools: ``/v1/scenarios``. Thin: validate, call, return.

A scenario belongs to whoever saved it: an API key (scope ``scenarios``) or a user signed in
through the institution's proxy (single sign-on, :mod:`app.api.proxy`). Only its owner
deletes it (another's scenario is a 404); a signed-in user may share one with a lab they
belong to, whose members then list it. Reading one by its unguessable id (its request,
result and report) stays open, so a link can be shared.

The create answer declares OpenAPI links to fetching, evaluating and deleting the scenario
it created, so generated clients and stateful testers can follow them."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response

from app.api.deps import (
    CurrentViewDep,
    EngineDep,
    RenderGateDep,
    ScenarioOwner,
    SessionDep,
    SettingsDep,
    ViewDep,
)
from app.api.files import report_response
from app.models.common import BUSY_RESPONSE, KEY_RESPONSES, PROBLEM_RESPONSES, problems
from app.models.scenario import ScenarioCreate, ScenarioPublic, ScenarioResult, ScenariosPublic
from app.render import reports
from app.store import scenarios as scenario_rows
from app.usecases import scenarios

router = APIRouter(
    prefix="/v1/scenarios", tags=["scenarios"], responses={422: PROBLEM_RESPONSES[422]}
)
ScenarioId = Annotated[
    str, Path(pattern=r"^[0-9a-f]{32}$", description="Scenario id (32 hex digits).")
]


def _links(source: str) -> dict[str, Any]:
    param = {"scenario_id": source}
    return {
        "GetScenario": {
            "operationId": "scenarios-get_scenario",
            "parameters": param,
            "description": "The saved scenario.",
        },
        "ScenarioResult": {
            "operationId": "scenarios-scenario_result",
            "parameters": param,
            "description": "Evaluate it with today's or a past day's prices (`as_of`).",
        },
        "ScenarioReport": {
            "operationId": "scenarios-scenario_report",
            "parameters": param,
            "description": "The scenario as a printable report.",
        },
        "DeleteScenario": {
            "operationId": "scenarios-delete_scenario",
            "parameters": param,
            "description": "Delete it.",
        },
    }


@router.post(
    "",
    response_model=ScenarioPublic,
    status_code=201,
    summary="Save a scenario",
    responses={
        201: {"description": "Saved.", "links": _links("$response.body#/id")},
        **KEY_RESPONSES,
        **problems(400, 404, 413, 415, 429),
    },
)
def create_scenario(
    body: ScenarioCreate,
    response: Response,
    view: CurrentViewDep,
    engine: EngineDep,
    settings: SettingsDep,
    owner: ScenarioOwner,
    lab: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=200,
            pattern=r"^[^\u0000-\u001f\u007f]*$",
            description="Share it with this lab (one of the signed-in user's labs: 403 "
            "otherwise, and always for an API key); its members list it. Default: not shared.",
        ),
    ] = None,
) -> ScenarioPublic:
    """Store a named break-even or run-cost request, owned by the caller (an API key with
    scope `scenarios`, or the user signed in through the institution's proxy), and return
    its id (and a `Location`). The request is evaluated once first, so one that cannot be
    answered is refused (404/422) and nothing is stored; an owner holding its quota
    (`GPUCOST_MAX_SCENARIOS_PER_KEY`, default 1,000) gets 429."""
    saved = scenarios.create(view, engine, settings, body, owner, lab)
    response.headers["Location"] = f"/v1/scenarios/{saved.id}"
    return saved


@router.get(
    "",
    response_model=ScenariosPublic,
    summary="List your scenarios",
    responses={
        200: {"links": _links("$response.body#/data/0/id")},
        **KEY_RESPONSES,
    },
)
def list_scenarios(
    session: SessionDep,
    owner: ScenarioOwner,
    limit: Annotated[int, Query(ge=1, le=500, description="Page size.")] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000, description="Rows to skip.")] = 0,
) -> ScenariosPublic:
    """The scenarios the caller may list, newest first: an API key's own (scope
    `scenarios`); a signed-in user's own and those shared with their labs."""
    rows, count = scenario_rows.list_page(session, owner, limit, offset)
    return ScenariosPublic(data=[scenario_rows.public(r) for r in rows], count=count)


@router.get(
    "/{scenario_id}",
    response_model=ScenarioPublic,
    summary="Get a scenario",
    responses={404: PROBLEM_RESPONSES[404]},
)
def get_scenario(scenario_id: ScenarioId, session: SessionDep) -> ScenarioPublic:
    """One saved scenario: its name, kind and request as given."""
    return scenario_rows.public(scenario_rows.get(session, scenario_id))


@router.get(
    "/{scenario_id}/result",
    response_model=ScenarioResult,
    summary="Evaluate a scenario",
    responses={404: PROBLEM_RESPONSES[404]},
)
def scenario_result(
    scenario_id: ScenarioId, session: SessionDep, view: ViewDep, settings: SettingsDep
) -> ScenarioResult:
    """The scenario's answer with the prices in force on `as_of` (default: today's), so a
    lab can watch its plan change as prices move. The answer's `prices` block gives the age
    of the prices used. 404 when a catalog item it names had no price that day."""
    return scenarios.result(session, view, settings, scenario_id)


@router.get(
    "/{scenario_id}/report",
    response_class=Response,
    summary="A scenario as a printable report",
    responses={
        200: {
            "description": "A printable HTML page: the saved request, the answer with the "
            "prices of `as_of` (default today's), the chart, what-ifs (break-even: "
            "utilization, electricity and desktop price moved), warnings, assumptions with "
            "sources, sources with dates.",
            "content": {"text/html": {"schema": {"type": "string"}}},
        },
        404: PROBLEM_RESPONSES[404],
        503: BUSY_RESPONSE,
    },
)
async def scenario_report(
    scenario_id: ScenarioId,
    session: SessionDep,
    view: ViewDep,
    settings: SettingsDep,
    heavy: RenderGateDep,
) -> Response:
    """The scenario as a page a budget office can print and file (no script; charts inline)."""
    report = await heavy.run(reports.scenario_report, session, view, settings, scenario_id)
    return report_response(report, inline=True)


@router.delete(
    "/{scenario_id}",
    status_code=204,
    response_class=Response,
    summary="Delete a scenario",
    responses={
        204: {"description": "Deleted."},
        **KEY_RESPONSES,
        404: PROBLEM_RESPONSES[404],
    },
)
def delete_scenario(scenario_id: ScenarioId, engine: EngineDep, owner: ScenarioOwner) -> Response:
    """Delete a scenario the caller saved (with this API key, or as this signed-in user);
    anyone else's, a lab's shared one included, is a 404."""
    scenario_rows.delete(engine, scenario_id, owner)
    return Response(status_code=204)
