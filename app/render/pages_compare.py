"""The compare calculator page (``GET /compare``): every cloud offer and desktop build in the
catalog ranked for a lab's monthly work, on the shared machinery of
:mod:`app.render.calculator` and the same request and use case as ``POST /v1/compare``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from app.catalog.view import CatalogView
from app.models.compare import CompareRequest
from app.models.compare_result import CompareOption, CompareResult
from app.query.answer_common import dated_note
from app.render import charts as charts_service
from app.render.calculator import Answer, Calculator, CalculatorForm, PageResult
from app.render.pages import compute_page
from app.render.report_html import inline_svg
from app.settings import Settings
from app.usecases.compare import compute_compare

# Options a page lists and charts by default (the API's default `limit` is 20).
COMPARE_ROWS = 12
_WORKLOAD = ("gpu", "benchmark")
_FILTERS = ("gpus", "providers", "pricing_models", "regions", "max_price_usd_per_hour")
_LISTS = frozenset({"gpus", "providers", "pricing_models", "regions"})


def _compare_body(typed: dict[str, Any]) -> dict[str, Any]:
    """The compare form as the API's request: the reference GPU or benchmark as the
    workload, the comma-separated lists as filters, the rest as top-level fields."""
    body: dict[str, Any] = {"limit": COMPARE_ROWS}
    workload = {k: typed[k] for k in _WORKLOAD if k in typed}
    filters: dict[str, Any] = {}
    for k in _FILTERS:
        if k in typed:
            value = typed[k]
            if k in _LISTS and isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            filters[k] = value
    if workload:
        body["workload"] = workload
    if filters:
        body["filters"] = filters
    body.update({k: v for k, v in typed.items() if k not in (*_WORKLOAD, *_FILTERS)})
    return body


COMPARE = Calculator(
    path="/compare",
    title="Compare: every offer and desktop for your work",
    template="compare_page.html.j2",
    main=(
        ("gpu_hours_per_month", "GPU-hours a month", "number", "work a month on the GPU below"),
        ("gpu", "on GPU", "text", "the GPU those hours are measured on, e.g. a100, rtx-4090"),
        ("gpus", "GPUs to rank", "text", "comma-separated, e.g. h100-sxm, l40s; empty: all"),
        ("horizon_months", "Over, months", "number", "totals over this many months"),
        ("region", "Region", "text", "a desktop's electricity and grid, e.g. de, us-ca"),
    ),
    more=(
        ("benchmark", "or a benchmark", "text", "efficientnet, stylegan_xl or yolor"),
        ("runs_per_month", "Runs a month", "number", "of the benchmark, instead of hours"),
        ("providers", "Providers", "text", "comma-separated, e.g. aws, runpod, vast"),
        ("pricing_models", "Pricing", "text", "comma-separated: on_demand, spot, reserved"),
        ("regions", "Cloud regions", "text", "comma-separated, e.g. us-east-1, eu-west-1"),
        ("max_price_usd_per_hour", "Highest price, USD/h", "number", "per instance"),
        ("electricity_price_usd_per_kwh", "Electricity, USD/kWh", "number", "empty: region's"),
        ("currency", "Currency", "text", "e.g. EUR, GBP; amounts are still entered in USD"),
        ("limit", "Options listed", "number", f"1-500; empty: {COMPARE_ROWS}"),
    ),
    model=CompareRequest,
    shape=_compare_body,
)


def compare_form(query: Mapping[str, str]) -> CalculatorForm:
    """The compare form of a query string."""
    return CalculatorForm.from_query(COMPARE, query)


def _per_run(res: CompareResult) -> bool:
    return res.runs_per_month is not None


def _option_text(o: CompareOption, res: CompareResult) -> str:
    """One ranked option: its total over the horizon (and per run), price and where."""
    parts = []
    if o.total_cost_usd is not None:
        parts.append(f"${o.total_cost_usd:,.0f} over {res.horizon_months:g} months")
    if _per_run(res) and o.cost_per_run_usd is not None:
        parts.append(f"${o.cost_per_run_usd:,.4g} a run")
    if o.kind == "desktop":
        parts.append(f"${o.upfront_usd:,.0f} to buy")
    elif o.price_usd_per_hour is not None:
        parts.append(f"${o.price_usd_per_hour:,.4g}/h")
    if o.instances > 1:
        parts.append(f"{o.instances} at once")
    if o.region:
        parts.append(o.region)
    if o.as_of:
        parts.append(f"price of {o.as_of}")
    return ", ".join(parts)


def compare_figures(res: CompareResult) -> list[tuple[str, str]]:
    """The ranked options as the page lists them, best first, then what was left out."""
    rows = [(f"{o.rank}. {o.label}", _option_text(o, res)) for o in res.options if o.rank]
    if note := dated_note(res):  # the oldest price any listed option rests on, when stale
        rows.append(("Oldest price listed", note.strip(" ()")))
    s = res.summary
    rows.append(
        (
            "Considered",
            f"{s.considered:,} options, {s.ranked:,} ranked; left out: {s.filtered_out:,} by "
            f"the filters, {s.does_not_fit:,} too small, {s.no_runtime:,} without a speed",
        )
    )
    return rows


def compare_headline(res: CompareResult) -> str:
    """The answer in one sentence: the cheapest option over the horizon for the work asked,
    with the date of its price (the oldest price of the list is a figure of its own: the
    answer names many options, the headline one)."""
    best = next((o for o in res.options if o.rank == 1), None)
    work = (
        f"{res.runs_per_month:g} runs a month"
        if _per_run(res)
        else f"{res.reference_hours_per_month:g} h a month on {res.reference}"
    )
    if best is None or best.total_cost_usd is None:
        return f"No option in the catalog can be ranked for {work}"
    dated = f" (its price of {best.as_of})" if best.as_of else ""
    return (
        f"Cheapest for {work} over {res.horizon_months:g} months: {best.label}, "
        f"${best.total_cost_usd:,.0f}{dated}"
    )


def compute_compare_page(view: CatalogView, settings: Settings, form: CalculatorForm) -> PageResult:
    """The compare page for ``form`` and its HTTP status."""

    def compute(req: BaseModel) -> Answer:
        assert isinstance(req, CompareRequest)
        res = compute_compare(view, req, settings)
        chart = None
        if any(o.rank for o in res.options):
            chart = inline_svg(charts_service.compare_bars(res, "svg").content.decode())
        return Answer(res, compare_headline(res), compare_figures(res), chart, req)

    return compute_page(view, form, compute)
