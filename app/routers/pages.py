"""The web calculator's pages (HTML forms, enhanced by the vendored htmx when JavaScript is
on): ``GET /``, ``GET /break-even``,
``GET /run-cost``, ``GET /compare``, ``GET /plan``, ``GET /carbon`` and ``GET /llm``. They
are registered from :data:`app.render.saved_pages.PAGES`; each reads its form and hands it
to its page module (:mod:`app.render.pages` and the others), which builds the API's request, calls
the same use case and renders its answer; drawn through the render gate like any chart. Not
part of the OpenAPI document."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.api import browser
from app.api.deps import RenderGateDep, SettingsDep, ViewDep
from app.catalog.view import CatalogView
from app.render import calculator
from app.render.saved_pages import PAGES, CalculatorPage
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
    forms that write (saving an answer, deleting a saved one)."""
    token = browser.token_of(request)
    fresh = token is None
    token = token or browser.new_token()
    form.csrf = browser.csrf_token(token)
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


def _calculator_route(page: CalculatorPage) -> Callable[..., Awaitable[Response]]:
    """The ``GET`` endpoint of a calculator page: its form from the query string, and the
    page (with the answer when the form was filled, a 4xx page with each problem beside its
    field when it cannot be computed)."""

    async def endpoint(
        request: Request, view: ViewDep, settings: SettingsDep, heavy: RenderGateDep
    ) -> Response:
        form = page.form(request.query_params)
        return await calculate(request, form, page.compute, view, settings, heavy)

    endpoint.__doc__ = page.summary
    return endpoint


for _page in PAGES.values():
    router.add_api_route(
        _page.path,
        _calculator_route(_page),
        methods=["GET"],
        response_class=HTMLResponse,
        name=f"{_page.kind}_page",
    )
