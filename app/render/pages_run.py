"""The run-cost calculator page (``GET /run-cost``): what one run of a workload costs on
cloud offers and on a desktop, and its cost per batch item (seed 004's metric), on the
shared machinery of :mod:`app.render.calculator` and the same request and use case as
``POST /v1/run-cost``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from app import usecases
from app.catalog.view import CatalogView
from app.costing.sourced import Assumed
from app.errors import DomainError
from app.models.interpretation import CloudQuery
from app.models.run_cost import RunCostRequest, RunCostResult, RunOptionResult
from app.query.answer_common import dated_note
from app.render import charts as charts_service
from app.render.calculator import Answer, Calculator, CalculatorForm, PageResult
from app.render.pages import compute_page
from app.render.report_html import inline_svg
from app.settings import Settings
from app.steps.offer_search import offer_for_desktop

# Options a page lists (the API's answer has them all; a request takes at most 50).
RUN_ROWS = 12


def _names(text: Any) -> list[str]:
    """A comma-separated field as its names (a value that is not text stays as it is)."""
    return [n.strip() for n in str(text).split(",") if n.strip()]


def _run_cost_body(typed: dict[str, Any]) -> dict[str, Any]:
    """The run-cost form as the API's request: the workload (a benchmark, or a runtime on a
    GPU, with items and batch size), one option per cloud offer and one for the desktop."""
    named = ("benchmark", "runtime_s", "gpu", "items", "max_batch_size")
    workload: dict[str, Any] = {k: typed[k] for k in named if k in typed}
    options: list[dict[str, Any]] = [{"offer_id": o} for o in _names(typed.get("offer_ids", ""))]
    if "desktop_gpu" in typed:
        desktop: dict[str, Any] = {"gpu": typed["desktop_gpu"]}
        if "total_price_usd" in typed:
            desktop["total_price_usd"] = typed["total_price_usd"]
        options.append({"desktop": desktop})
    top = (
        "utilization",
        "electricity_price_usd_per_kwh",
        "region",
        "currency",
        "launch_overhead_min",
    )
    return {"workload": workload, "options": options, **{k: typed[k] for k in top if k in typed}}


RUN_COST = Calculator(
    path="/run-cost",
    title="Run cost: one run, and per batch item",
    template="run_cost_page.html.j2",
    main=(
        ("benchmark", "Benchmark", "text", "efficientnet, stylegan_xl or yolor; or a runtime"),
        ("runtime_s", "or a runtime, s", "number", "one run's seconds on the GPU below"),
        ("gpu", "measured on GPU", "text", "the GPU that runtime was measured on"),
        ("rent_gpus", "GPUs to rent", "text", "comma-separated, e.g. a100, l4; cheapest offer"),
        ("offer_ids", "or cloud offers", "text", "comma-separated catalog offer ids"),
        ("desktop_gpu", "Desktop GPU", "text", "to compare an owned desktop, e.g. rtx-4090"),
    ),
    more=(
        ("total_price_usd", "Desktop price, USD", "number", "your quote; empty: the catalog's"),
        ("items", "Items per run", "number", "for the cost per item, e.g. images"),
        ("max_batch_size", "Largest batch per GPU", "number", "for the cost per batch item"),
        ("utilization", "Utilization, %", "number", "of the desktop, for its cost per hour"),
        ("electricity_price_usd_per_kwh", "Electricity, USD/kWh", "number", "empty: region's"),
        ("region", "Region", "text", "e.g. de, us-ca"),
        ("launch_overhead_min", "Launch overhead, min", "number", "billed before each run"),
        ("currency", "Currency", "text", "e.g. EUR, GBP; amounts are still entered in USD"),
    ),
    model=RunCostRequest,
    shape=_run_cost_body,
)


def run_cost_form(query: Mapping[str, str]) -> CalculatorForm:
    """The run-cost form of a query string."""
    return CalculatorForm.from_query(RUN_COST, query)


def with_rentals(view: CatalogView, form: CalculatorForm) -> None:
    """Each GPU in "GPUs to rent" becomes its comparable offer (the API's rule,
    :func:`offer_for_desktop`: the cheapest comparable on-demand offer), added to the offer
    ids and said beside the field. Raises the catalog's 404 for a GPU it does not know, and
    a 422 for one no provider rents."""
    chosen: list[str] = []
    whys: list[str] = []
    for name in _names(form.values.get("rent_gpus", "")):
        gpu = view.resolve_gpu(name)
        found = offer_for_desktop(view, CloudQuery(), gpu, 1)
        if found.value is None:
            raise DomainError(f"no cloud offer of {gpu.id} in the catalog: name an offer")
        chosen.append(found.value.id)
        whys += [n.source for n in found.notes if isinstance(n, Assumed)][:1]
    if chosen:
        form.chosen["rent_gpus"] = (", ".join(chosen), "; ".join(whys))
        offers = [*_names(form.values.get("offer_ids", "")), *chosen]
        form.values["offer_ids"] = ", ".join(dict.fromkeys(offers))
        del form.values["rent_gpus"]


def _metric(res: RunCostResult) -> str:
    """The figure options are ranked by: the run's cost, or the cost per batch item when
    no run can be costed."""
    costed = any(o.cost_usd is not None for o in res.options)
    return "cost_usd" if costed else "cost_per_batch_item_usd"


def run_cost_figures(res: RunCostResult) -> list[tuple[str, str]]:
    """One line per option (at most :data:`RUN_ROWS`), cheapest run first: its cost, time,
    cost per item and per batch item, energy and emissions; options that cannot run say
    why."""
    metric = _metric(res)
    ranked = sorted(
        res.options, key=lambda o: (getattr(o, metric) is None, getattr(o, metric) or 0)
    )
    return [(o.label, _option_text(o)) for o in ranked[:RUN_ROWS]]


def _option_text(o: RunOptionResult) -> str:
    if o.fits is False:
        return f"does not fit: {o.note or 'out of memory'}"
    parts = []
    if o.cost_usd is not None:
        parts.append(f"${o.cost_usd:,.4g} a run")
    if o.runtime_s is not None:
        parts.append(f"{o.runtime_s:,.0f} s")
    if o.price_usd_per_hour is not None:
        parts.append(f"${o.price_usd_per_hour:,.4g}/h")
    if o.cost_per_item_usd is not None:
        parts.append(f"${o.cost_per_item_usd:,.3g} per item")
    if o.cost_per_batch_item_usd is not None:
        parts.append(f"${o.cost_per_batch_item_usd:,.3g} per batch item per hour")
    if o.energy_kwh is not None and o.co2e_kg is not None:
        parts.append(f"{o.energy_kwh:,.3g} kWh, {o.co2e_kg:,.3g} kg CO2e")
    if o.note:  # how the runtime was estimated: its first clause (the API has it all)
        parts.append(o.note.split(":")[0])
    return ", ".join(parts) or "no figure"


def run_cost_headline(res: RunCostResult) -> str:
    """The answer in one sentence: the cheapest option for one run (or per batch item, when
    no runtime is known), with the oldest price's age when it is stale."""
    metric = _metric(res)
    ranked = [o for o in res.options if getattr(o, metric) is not None and o.fits is not False]
    if not ranked:
        return f"No option can be costed for this workload{dated_note(res)}"
    best = min(ranked, key=lambda o: getattr(o, metric))
    if metric == "cost_usd":
        time = f" ({best.runtime_s:,.0f} s)" if best.runtime_s else ""
        return f"Cheapest run: ${best.cost_usd:,.2f} on {best.label}{time}{dated_note(res)}"
    return (
        f"Cheapest per batch item: ${best.cost_per_batch_item_usd:,.3f} per item per hour on "
        f"{best.label}{dated_note(res)}"
    )


def compute_run_cost_page(
    view: CatalogView, settings: Settings, form: CalculatorForm
) -> PageResult:
    """The run-cost page for ``form`` and its HTTP status."""

    def compute(req: BaseModel) -> Answer:
        assert isinstance(req, RunCostRequest)
        res = usecases.compute_run_cost(view, req, settings)
        chart = None
        if any(o.cost_usd is not None for o in res.options):
            svg = charts_service.run_cost_bars(res, "svg").content.decode()
            chart = inline_svg(svg)
        return Answer(res, run_cost_headline(res), run_cost_figures(res), chart, req)

    return compute_page(view, form, compute, prepare=lambda: with_rentals(view, form))
