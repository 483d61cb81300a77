"""The web calculator's pages (HTML forms, enhanced by the vendored htmx when JavaScript is
on): ``GET /``, ``GET /break-even``,
``GET /run-cost``, ``GET /compare``, ``GET /plan``, ``GET /carbon`` and ``GET /llm``. They
read the form and hand it to :mod:`app.render.pages`, which builds the API's request, calls
the same use case and renders its answer; drawn through the render gate like any chart. Not
part of the OpenAPI document."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.api import browser
from app.api.deps import RenderGateDep, SettingsDep, ViewDep
from app.catalog.view import CatalogView
from app.render import calculator, pages, pages_compare, pages_plan, pages_run
from app.render.saved_pages import SAVABLE
from app.settings import Settings

router = APIRouter(include_in_schema=False)


Compute = Callable[[CatalogView, Settings, calculator.CalculatorForm], calculator.PageResult]


async def calculate(
    request: Request,
    form: calculator.CalculatorForm,
    compute: Compute,
    view: CatalogView,
    settings: Settings,
    heavy: RenderGateDep,
) -> Response:
    """A calculator's page for ``form``, computed through the render gate; the browser gets
    its cookie (:mod:`app.api.browser`) on its first page, and the page the token of its
    forms that write (saving an answer)."""
    token = browser.token_of(request)
    fresh = token is None
    token = token or browser.new_token()
    form.csrf = browser.csrf_token(token)
    form.savable = form.calc.path in SAVABLE
    response = _respond(await heavy.run(compute, view, settings, form))
    if fresh:
        browser.set_cookie(request, response, token)
    return response


def _respond(result: calculator.PageResult) -> Response:
    """A calculator's page, or its answer as a file (``download=csv|xlsx``)."""
    headers = {}
    if result.filename:
        headers["Content-Disposition"] = f'attachment; filename="{result.filename}"'
    return Response(
        result.content, status_code=result.status, media_type=result.media_type, headers=headers
    )


@router.get("/", response_class=HTMLResponse)
def front_page(view: ViewDep) -> HTMLResponse:
    """What gpucost answers, with links to the calculators and the API."""
    providers = {o.provider for o in view.offer_by_id.values()}
    return HTMLResponse(
        calculator.front_page(len(view.gpus), len(view.offer_by_id), len(providers))
    )


@router.get("/break-even", response_class=HTMLResponse)
async def break_even_page(
    request: Request, view: ViewDep, settings: SettingsDep, heavy: RenderGateDep
) -> Response:
    """The break-even calculator: the form, and the answer when the form was filled (a 4xx
    page with each problem beside its field when it cannot be computed)."""
    form = pages.break_even_form(request.query_params)
    return await calculate(request, form, pages.compute_break_even_page, view, settings, heavy)


@router.get("/llm", response_class=HTMLResponse)
async def llm_page(
    request: Request, view: ViewDep, settings: SettingsDep, heavy: RenderGateDep
) -> Response:
    """The LLM job calculator: memory per GPU, time and cost of a model's job on each GPU."""
    form = pages.llm_form(request.query_params)
    return await calculate(request, form, pages.compute_llm_page, view, settings, heavy)


@router.get("/carbon", response_class=HTMLResponse)
async def carbon_page(
    request: Request, view: ViewDep, settings: SettingsDep, heavy: RenderGateDep
) -> Response:
    """The carbon calculator: energy and emissions of GPUs over busy hours or a period."""
    form = pages.carbon_form(request.query_params)
    return await calculate(request, form, pages.compute_carbon_page, view, settings, heavy)


@router.get("/run-cost", response_class=HTMLResponse)
async def run_cost_page(
    request: Request, view: ViewDep, settings: SettingsDep, heavy: RenderGateDep
) -> Response:
    """The run-cost calculator: one run of a benchmark or a timed job on cloud offers and a
    desktop, with its cost per item and per batch item."""
    form = pages_run.run_cost_form(request.query_params)
    return await calculate(request, form, pages_run.compute_run_cost_page, view, settings, heavy)


@router.get("/compare", response_class=HTMLResponse)
async def compare_page(
    request: Request, view: ViewDep, settings: SettingsDep, heavy: RenderGateDep
) -> Response:
    """The compare calculator: every offer and desktop build ranked for a month's work."""
    form = pages_compare.compare_form(request.query_params)
    return await calculate(request, form, pages_compare.compute_compare_page, view, settings, heavy)


@router.get("/plan", response_class=HTMLResponse)
async def plan_page(
    request: Request, view: ViewDep, settings: SettingsDep, heavy: RenderGateDep
) -> Response:
    """The fleet plan calculator: what to buy, when, and what to rent for a month's work and
    its peaks (rows added by a button, without JavaScript)."""
    form = pages_plan.plan_form(request.query_params)
    return await calculate(request, form, pages_plan.compute_plan_page, view, settings, heavy)
