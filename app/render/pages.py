"""The web calculator's pages: the break-even calculator (a desktop against renting) and the
carbon calculator (energy and emissions of GPUs over a period or busy hours), on the shared
machinery of :mod:`app.render.calculator`. Each page's request is the API's (the same
resolve and compose), its key figures are chat's (:func:`break_even_facts`,
:func:`carbon_facts`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from app import usecases
from app.catalog.view import CatalogView
from app.costing import defaults
from app.costing.errors import CostingError
from app.costing.sourced import Assumed
from app.errors import DomainError
from app.models.break_even import BreakEvenRequest, BreakEvenResult
from app.models.carbon import CarbonRequest, CarbonResult
from app.models.inputs import DesktopSpec
from app.models.interpretation import CloudQuery
from app.models.llm import LlmEstimateRequest, LlmEstimateResult
from app.query.answer_common import dated_note
from app.query.answer_costs import break_even_facts, carbon_facts
from app.render import charts as charts_service
from app.render.calculator import (
    Answer,
    Calculator,
    CalculatorForm,
    Field,
    PageResult,
    download,
    render,
)
from app.render.report_html import inline_svg
from app.settings import Settings
from app.steps.offer_search import offer_for_desktop
from app.usecases.llm_estimate import compute_llm_estimate

# GPUs an LLM answer lists (the API's answer has them all).
LLM_ROWS = 8

# (name, label, kind, help): the few inputs most people change, then "more options".
MAIN_FIELDS: tuple[Field, ...] = (
    ("gpu", "GPU", "text", "a catalog id or name, e.g. rtx-3090, 4090, h100 pcie"),
    ("gpu_count", "GPUs in the desktop", "number", "1-16"),
    ("total_price_usd", "Desktop price, USD", "number", "your quote; empty: the catalog's"),
    ("offer_id", "Cloud offer", "text", "a catalog offer id; empty: the comparable offer"),
    ("price_usd_per_hour", "or a cloud price, USD/h", "number", "instead of an offer"),
    ("utilization", "Utilization, %", "number", "share of the time the GPUs are busy"),
    ("electricity_price_usd_per_kwh", "Electricity, USD/kWh", "number", "empty: the region's"),
)
MORE_FIELDS: tuple[Field, ...] = (
    ("region", "Region", "text", "e.g. de, us-ca, aws:eu-west-1"),
    ("condition", "Card bought", "select", "new or used; empty: the catalog's rule"),
    ("resell_after_years", "Resell after, years", "number", "empty: kept"),
    ("currency", "Currency", "text", "e.g. EUR, GBP; amounts are still entered in USD"),
)
# The request field each form field fills (the rest are top-level request fields).
_DESKTOP = {"gpu", "gpu_count", "total_price_usd", "condition", "resell_after_years"}
_CLOUD = {"offer_id", "price_usd_per_hour"}


def _break_even_body(typed: dict[str, Any]) -> dict[str, Any]:
    desktop = {k: v for k, v in typed.items() if k in _DESKTOP}
    cloud = {k: v for k, v in typed.items() if k in _CLOUD}
    top = {k: v for k, v in typed.items() if k not in _DESKTOP | _CLOUD}
    return {"desktop": desktop, "cloud": cloud, **top}


BREAK_EVEN = Calculator(
    path="/break-even",
    title="Break-even: buy a desktop or rent",
    template="break_even_page.html.j2",
    main=MAIN_FIELDS,
    more=MORE_FIELDS,
    model=BreakEvenRequest,
    shape=_break_even_body,
)
CARBON = Calculator(
    path="/carbon",
    title="Carbon: energy and emissions of GPUs",
    template="carbon_page.html.j2",
    main=(
        ("gpu", "GPU", "text", "a catalog id or name, e.g. a100, h100 sxm, 4090"),
        ("gpu_count", "GPUs", "number", "how many run"),
        ("hours", "Busy hours", "number", "the hours each GPU works; or a period below"),
        ("days", "or a period, days", "number", "calendar days, at the utilization below"),
        ("utilization", "Utilization, %", "number", "with a period: share of it the GPUs work"),
        ("region", "Region", "text", "the grid, e.g. fr, de, us-ca; empty: the default"),
    ),
    more=(
        ("gpu_power_w", "Power per GPU, W", "number", "empty: its TDP"),
        ("base_power_w", "Host power, W", "number", "CPU, board and drives while busy"),
    ),
    model=CarbonRequest,
    shape=lambda typed: typed,
)


def _llm_body(typed: dict[str, Any]) -> dict[str, Any]:
    """The LLM form's values as a request: GPUs typed as a comma-separated list."""
    body = dict(typed)
    if isinstance(body.get("gpus"), str):
        body["gpus"] = [g.strip() for g in body["gpus"].split(",") if g.strip()]
    return body


LLM = Calculator(
    path="/llm",
    title="LLM job: memory, time and cost",
    template="llm_page.html.j2",
    main=(
        ("model", "Model", "text", "a catalog model id, e.g. llama-3.1-8b, mixtral-8x7b"),
        ("task", "Task", "text", "inference, lora, qlora, full_finetune or pretrain"),
        ("tokens", "Tokens", "number", "tokens trained on or generated, e.g. 100000000"),
        ("gpus", "GPUs", "text", "comma-separated ids, e.g. rtx-4090, h100-sxm; empty: all"),
    ),
    more=(
        ("precision", "Precision", "text", "bf16, fp16, fp8, int8 or int4; empty: the task's"),
        ("gpu_count", "GPUs per run", "number", "empty: as many as hold the job"),
        ("utilization", "Utilization, %", "number", "of an owned desktop, for its cost"),
        ("region", "Region", "text", "electricity price of an owned desktop, e.g. de"),
    ),
    model=LlmEstimateRequest,
    shape=_llm_body,
)


def llm_form(query: Mapping[str, str]) -> CalculatorForm:
    """The LLM job form of a query string."""
    return CalculatorForm.from_query(LLM, query)


def break_even_form(query: Mapping[str, str]) -> CalculatorForm:
    """The break-even form of a query string."""
    return CalculatorForm.from_query(BREAK_EVEN, query)


def carbon_form(query: Mapping[str, str]) -> CalculatorForm:
    """The carbon form of a query string."""
    return CalculatorForm.from_query(CARBON, query)


def headline(res: BreakEvenResult) -> str:
    """The answer in one sentence, to the hundredth of a day, with the date and age of the
    oldest price it rests on when that is older than the freshness policy (chat's words,
    :func:`app.query.answer_common.dated_note`)."""
    days = res.break_even_days
    if days is None:
        return f"The desktop never pays for itself: {res.break_even_reason}"
    return f"Break-even after {days:,.2f} days{dated_note(res)}"


def with_cloud(view: CatalogView, form: CalculatorForm) -> None:
    """A form without a cloud side is compared with the comparable offer of its desktop's
    GPUs (the API's rule, :func:`offer_for_desktop`), said beside the offer field. Raises
    the catalog's 404 for a GPU it does not know."""
    if "offer_id" in form.values or "price_usd_per_hour" in form.values:
        return
    if "gpu" not in form.values:
        return  # the model's validation asks for it
    gpu = view.resolve_gpu(form.values["gpu"])
    count = form.body()["desktop"].get("gpu_count", 1)
    found = offer_for_desktop(view, CloudQuery(), gpu, count if isinstance(count, int) else 1)
    if found.value is None:
        raise DomainError(f"no cloud offer of {gpu.id} in the catalog: give a cloud price")
    why = next(
        (n.source for n in found.notes if isinstance(n, Assumed) and n.name == "cloud.offer_id"),
        "",
    )
    form.chosen["offer_id"] = (found.value.id, why)
    form.values["offer_id"] = found.value.id


def placeholders(view: CatalogView) -> dict[str, str]:
    """The engine's defaults, shown in the fields a form leaves empty (each answer lists
    them with their source): one GPU, the default utilization profile's share, the default
    host power and electricity price (seed 001's 15 %, 100 W and $0.12/kWh, from the
    defaults registry)."""
    gpus = DesktopSpec.model_fields["gpu_count"].default
    profile = view.profiles.get(str(defaults.UTILIZATION_PROFILE.value))
    shown = {
        "gpu_count": str(gpus),
        "electricity_price_usd_per_kwh": f"{defaults.ELECTRICITY_PRICE.number:g}",
        "base_power_w": f"{defaults.BASE_POWER.number:g}",
    }
    if profile is not None:
        shown["utilization"] = f"{profile.utilization * 100:g}"
    return shown


def compute_page(
    view: CatalogView,
    form: CalculatorForm,
    compute: Callable[[BaseModel], Answer],
    prepare: Callable[[], None] | None = None,
) -> PageResult:
    """The page for ``form`` and its HTTP status: the answer (200), or the form with each
    problem beside its field (422, or the problem's own status: 404 for a name the catalog
    does not know)."""
    today = dt.datetime.now(dt.UTC).date()

    def page(status: int, answer: Answer | None = None) -> PageResult:
        shown = placeholders(view)
        content = render(
            form, answer, data_version=str(view.revision), today=today, placeholders=shown
        )
        return PageResult(content, status)

    if not form.asked:
        return page(200)
    try:
        if prepare is not None:
            prepare()
        req = form.request()
        if req is None:
            return page(422)
        answer = compute(req)
    except DomainError as exc:
        form.errors[""] = exc.detail
        return page(exc.status)
    except CostingError as exc:
        form.errors[exc.field if exc.field in form.calc.names else ""] = exc.message
        return page(422)
    if form.download:
        return download(form, answer, data_version=str(view.revision), today=today)
    return page(200, answer)


def compute_break_even_page(
    view: CatalogView, settings: Settings, form: CalculatorForm
) -> PageResult:
    """The break-even page for ``form`` (an empty cloud side takes the comparable offer of
    the desktop's GPUs, said beside the offer field) and its HTTP status."""

    def compute(req: BaseModel) -> Answer:
        assert isinstance(req, BreakEvenRequest)
        res = usecases.compute_break_even(view, req, settings)
        chart = charts_service.cumulative_from_result(res, None, "svg").content.decode()
        return Answer(res, headline(res), break_even_facts(res), inline_svg(chart), req)

    return compute_page(view, form, compute, prepare=lambda: with_cloud(view, form))


def llm_figures(res: LlmEstimateResult) -> list[tuple[str, str]]:
    """Up to :data:`LLM_ROWS` GPUs, those that hold the job first, cheapest first: whether
    they hold it, its time and what it costs (rented, or on an owned desktop)."""
    figures = []
    for e in res.estimates[:LLM_ROWS]:
        holds = f"fits ({e.gpus_priced or 1} GPU)" if e.fits else f"needs {e.gpus_needed or '-'}"
        time = f"{e.runtime_s / 3600:,.1f} h" if e.runtime_s else "no time"
        cost = f", ${e.cost_usd:,.2f}" if e.cost_usd is not None else ""
        per = (
            f" (${e.cost_usd_per_million_tokens:,.4g}/M tokens)"
            if e.cost_usd_per_million_tokens
            else ""
        )
        figures.append(
            (e.gpu_id, f"{holds}, {e.memory_gb_per_gpu:.1f} GB per GPU, {time}{cost}{per}")
        )
    return figures


def llm_headline(res: LlmEstimateResult) -> str:
    """The LLM answer in one sentence: the job, its memory per GPU and the cheapest GPUs
    that hold it."""
    m = res.model
    what = f"{m['task'].replace('_', ' ')} of {m.get('name', m['model'])} ({m['precision']})"
    fit = next((e for e in res.estimates if e.fits and e.cost_usd is not None), None)
    if fit is None:
        need = res.estimates[0].memory_gb_per_gpu if res.estimates else 0.0
        return f"{what}: no GPU asked for holds it ({need:.1f} GB per GPU){dated_note(res)}"
    time = f"{(fit.runtime_s or 0) / 3600:,.1f} h"
    return (
        f"{what}: cheapest on {fit.gpus_priced or 1}x {fit.gpu_id}, {time} for "
        f"${fit.cost_usd:,.2f} ({fit.memory_gb_per_gpu:.1f} GB per GPU){dated_note(res)}"
    )


def compute_llm_page(view: CatalogView, settings: Settings, form: CalculatorForm) -> PageResult:
    """The LLM job page for ``form`` and its HTTP status."""

    def compute(req: BaseModel) -> Answer:
        assert isinstance(req, LlmEstimateRequest)
        res = compute_llm_estimate(view, req, settings)
        return Answer(res, llm_headline(res), llm_figures(res), None, req)

    return compute_page(view, form, compute)


def carbon_headline(res: CarbonResult) -> str:
    """The carbon answer in one sentence: operational emissions, energy and grid, then the
    embodied share."""
    return (
        f"{res.co2e_kg:,.1f} kg CO2e from {res.energy_kwh:,.1f} kWh at "
        f"{res.carbon_intensity_g_per_kwh:,.0f} gCO2e/kWh, plus {res.embodied.co2e_kg:,.1f} kg "
        f"embodied{dated_note(res)}"
    )


def compute_carbon_page(view: CatalogView, settings: Settings, form: CalculatorForm) -> PageResult:
    """The carbon page for ``form`` and its HTTP status."""

    def compute(req: BaseModel) -> Answer:
        assert isinstance(req, CarbonRequest)
        res = usecases.compute_carbon(view, req, settings)
        return Answer(res, carbon_headline(res), carbon_facts(req, res), None, req)

    return compute_page(view, form, compute)
