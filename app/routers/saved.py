"""Saved calculator answers (HTML, not part of the OpenAPI document): ``POST /s`` saves the
answer of a calculator page's form as a scenario owned by the browser (or the signed-in
user) and redirects to ``GET /s/{id}``, which shows that page computed on the prices of the
day it was saved, to anyone with the link; ``POST /s/{id}/delete`` deletes it, for its owner
only. Both writes need the page's form token (:mod:`app.api.browser`)."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import RedirectResponse, Response

from app.api import browser, deps
from app.api.deps import CurrentViewDep, EngineDep, RenderGateDep, SessionDep, SettingsDep
from app.render.calculator import SavedPage
from app.render.saved_pages import form_of, request_of
from app.routers.pages import calculate
from app.store import scenarios as scenario_rows
from app.usecases import scenarios

router = APIRouter(include_in_schema=False)
ScenarioId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="Scenario id.")]
_CONTROL = re.compile(r"[\u0000-\u001f\u007f]")


@router.post("/s")
def save_answer(
    request: Request,
    view: CurrentViewDep,
    engine: EngineDep,
    settings: SettingsDep,
    page: Annotated[str, Form(max_length=100)],
    query: Annotated[str, Form(max_length=4000)],
    csrf: Annotated[str, Form(max_length=100)],
    name: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """Save the answer of ``page``'s form (``query``) with today's prices, named ``name``
    (control characters dropped; empty: the page's path), and redirect (303) to its page.
    403 without the browser cookie or with a wrong form token; 404 for a page whose answers
    cannot be saved; 422 for a form that cannot be computed; 429 past the owner's quota."""
    owner = browser.writer(request, csrf)
    savable, form = form_of(page, query)
    req = request_of(view, savable, form)
    saved = scenarios.save_page(
        view,
        engine,
        settings,
        savable.kind,
        req,
        name=_CONTROL.sub("", name).strip() or page,
        owner=owner,
        page_query=form.link(),
    )
    return RedirectResponse(f"/s/{saved.id}", status_code=303)


@router.get("/s/{scenario_id}")
async def saved_answer(
    request: Request,
    scenario_id: ScenarioId,
    session: SessionDep,
    settings: SettingsDep,
    heavy: RenderGateDep,
) -> Response:
    """A saved answer's page, computed on the catalog it was saved on while that is still
    the current one, else on the catalog's prices of the day it was saved (a dated view),
    with a link to recompute it on today's; ``download=csv|xlsx`` as on the
    calculators. A scenario saved through the API redirects (303) to its report. 404 when
    there is no such scenario."""
    row = scenario_rows.get(session, scenario_id)
    if row.page_query is None:
        return RedirectResponse(f"/v1/scenarios/{row.id}/report", status_code=303)
    path, _, query = row.page_query.partition("?")
    savable, form = form_of(path, query)
    download = request.query_params.get("download")
    form.download = download if download in ("csv", "xlsx") else None
    saved_on = row.created_at.date()
    owner = browser.reader(request, browser.token_of(request))
    form.saved = SavedPage(row.id, row.name, saved_on, scenario_rows.is_owner(row, owner))
    # The catalog it was computed on while nothing has changed since; after a change, the
    # prices in force on the day it was saved (a dated view, as `?as_of=` gives the API).
    views = request.app.dependency_overrides.get(deps.view, deps.view)
    view = await views(as_of=None)
    if view.revision != row.catalog_revision:
        view = await views(as_of=saved_on)
    return await calculate(request, form, savable.compute, view, settings, heavy)


@router.post("/s/{scenario_id}/delete")
def delete_answer(
    request: Request,
    scenario_id: ScenarioId,
    engine: EngineDep,
    csrf: Annotated[str, Form(max_length=100)],
) -> Response:
    """Delete a saved answer and redirect (303) to the front page. 403 without the browser
    cookie or with a wrong form token; 404 unless this browser (or signed-in user) saved it."""
    scenario_rows.delete(engine, scenario_id, browser.writer(request, csrf))
    return RedirectResponse("/", status_code=303)
