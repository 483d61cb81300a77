"""The fleet plan calculator page (``GET /plan``): what to buy and when, and what to rent, for
a lab's monthly GPU-hours with its peaks, on the shared machinery of
:mod:`app.render.calculator` and the same request and use case as ``POST /v1/plan``.

Peaks are rows of three fields (``peak_name_<n>``, ``peak_month_<n>``,
``peak_gpu_hours_<n>``): the form always shows one empty row past the filled ones, and its
"Add a peak row" button asks for one more (``peak_rows``), so rows are added without
JavaScript.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from app.catalog.view import CatalogView
from app.models.plan import PlanRequest, PlanResult
from app.render import charts as charts_service
from app.render.calculator import Answer, Calculator, CalculatorForm, Field, PageResult
from app.render.pages import compute_page
from app.render.report_html import inline_svg
from app.settings import Settings
from app.usecases.plan_answer import compute_plan

# Peak rows a form may hold: the request takes one peak per calendar month.
MAX_PEAK_ROWS = 12
_PEAK = ("name", "month", "gpu_hours")
MAIN: tuple[Field, ...] = (
    ("gpu", "GPU the work runs on", "text", "the hours below are on it, e.g. a100, rtx-4090"),
    ("baseline_gpu_hours_per_month", "GPU-hours a month", "number", "an ordinary month's work"),
    ("months", "Months planned", "number", "the horizon, 1-120"),
    ("budget_usd", "Budget for desktops, USD", "number", "caps what the plan buys"),
    ("region", "Region", "text", "the desktops' electricity and grid, e.g. de, us-ca"),
)
MORE: tuple[Field, ...] = (
    ("desktop_gpu", "Desktop GPU", "text", "the desktop the plan may buy; empty: the GPU above"),
    ("desktop_gpu_count", "GPUs per desktop", "number", "1-16"),
    ("desktop_total_price_usd", "Desktop price, USD", "number", "your quote; empty: catalog's"),
    ("offer_id", "Cloud offer", "text", "a catalog offer id; empty: the cheapest on-demand"),
    ("price_usd_per_hour", "or a cloud price, USD/h", "number", "instead of an offer"),
    ("max_machines", "Most desktops", "number", "room or power limits"),
    ("start_month", "First month", "text", "YYYY-MM; empty: next month"),
    ("electricity_price_usd_per_kwh", "Electricity, USD/kWh", "number", "empty: region's"),
    ("currency", "Currency", "text", "e.g. EUR, GBP; amounts are still entered in USD"),
)
_DESKTOP = {"desktop_gpu": "gpu", "desktop_gpu_count": "gpu_count"}
_DESKTOP_PRICE = "desktop_total_price_usd"
_CLOUD = ("offer_id", "price_usd_per_hour")
_CONSTRAINTS = ("budget_usd", "max_machines")


def _peak_fields(rows: int) -> tuple[Field, ...]:
    """The fields of ``rows`` peak rows."""
    fields: list[Field] = []
    for n in range(1, rows + 1):
        fields += [
            (f"peak_name_{n}", f"Peak {n}: what", "text", "e.g. NeurIPS deadline"),
            (f"peak_month_{n}", f"Peak {n}: month", "number", "1 (January) to 12, every year"),
            (f"peak_gpu_hours_{n}", f"Peak {n}: GPU-hours", "number", "that month's work"),
        ]
    return tuple(fields)


def _filled_rows(values: Mapping[str, str]) -> list[int]:
    """Row numbers with any peak field filled, in order."""
    rows = {
        int(k.rsplit("_", 1)[1])
        for k, v in values.items()
        if k.startswith("peak_") and k.rsplit("_", 1)[1].isdigit() and v.strip()
    }
    return sorted(r for r in rows if 1 <= r <= MAX_PEAK_ROWS)


def _plan_body(typed: dict[str, Any]) -> dict[str, Any]:
    """The plan form as the API's request: the peak rows filled as `peaks`, the desktop as
    the one candidate in `desktops`, the cloud side, the limits as `constraints`."""
    peaks = [
        {key: typed[f"peak_{key}_{n}"] for key in _PEAK if f"peak_{key}_{n}" in typed}
        for n in _filled_rows({k: str(v) for k, v in typed.items()})
    ]
    desktop = {api: typed[k] for k, api in _DESKTOP.items() if k in typed}
    if _DESKTOP_PRICE in typed:
        desktop["total_price_usd"] = typed[_DESKTOP_PRICE]
    if desktop and "gpu" not in desktop and "gpu" in typed:
        desktop["gpu"] = typed["gpu"]
    cloud = {k: typed[k] for k in _CLOUD if k in typed}
    constraints = {k: typed[k] for k in _CONSTRAINTS if k in typed}
    taken = {*_DESKTOP, _DESKTOP_PRICE, *_CLOUD, *_CONSTRAINTS}
    body = {k: v for k, v in typed.items() if k not in taken and not k.startswith("peak_")}
    for key, value in (
        ("peaks", peaks),
        ("desktops", [desktop] if desktop else []),
        ("cloud", cloud),
        ("constraints", constraints),
    ):
        if value:
            body[key] = value
    return body


def plan_calculator(rows: int) -> Calculator:
    """The plan page with ``rows`` peak rows."""
    return Calculator(
        path="/plan",
        title="Fleet plan: what to buy, when, and what to rent",
        template="plan_page.html.j2",
        main=(*MAIN, *_peak_fields(rows)),
        more=MORE,
        model=PlanRequest,
        shape=_plan_body,
        locate=_locate,
        extra={"peak_rows": rows, "max_peak_rows": MAX_PEAK_ROWS},
    )


def _locate(loc: tuple[Any, ...], values: Mapping[str, str]) -> str | None:
    """The form field a validation problem at ``loc`` is about: a peak's field in its row,
    the desktop's fields (not the reference GPU's)."""
    if len(loc) >= 3 and loc[0] == "peaks" and isinstance(loc[1], int):
        rows = _filled_rows(values)
        if loc[1] < len(rows):
            return f"peak_{loc[2]}_{rows[loc[1]]}"
    if len(loc) >= 3 and loc[0] == "desktops":
        key = str(loc[2])
        return next((k for k, api in _DESKTOP.items() if api == key), _DESKTOP_PRICE)
    return None


def plan_form(query: Mapping[str, str]) -> CalculatorForm:
    """The plan form of a query string: the filled peak rows and one empty row, or the rows
    ``peak_rows`` asks for (the "Add a peak row" button), at most :data:`MAX_PEAK_ROWS`."""
    filled = _filled_rows(query)
    asked = query.get("peak_rows", "")
    wanted = int(asked) if asked.isdigit() else 0
    rows = min(MAX_PEAK_ROWS, max(filled[-1] + 1 if filled else 1, wanted))
    return CalculatorForm.from_query(plan_calculator(rows), query)


def plan_figures(res: PlanResult) -> list[tuple[str, str]]:
    """What the plan buys and rents, its total beside all-cloud and all-desktop, and the
    demand it meets."""
    plan, cloud, desk = res.strategies
    labels = {d.id: d.label for d in res.desktops}
    bought = [f"{p.units} x {labels[p.build_id]} in {p.month}" for p in res.purchases]
    rows = [
        (
            "Demand",
            f"{res.demand_gpu_hours:,.0f} GPU-hours on {res.reference_gpu_id} over "
            f"{res.horizon_months} months from {res.start_month} (peak month "
            f"{res.peak_gpu_hours:,.0f})",
        ),
        ("Buy", "; ".join(bought) or "no desktop"),
        (
            "Rent",
            f"{plan.rented_gpu_hours:,.0f} GPU-hours"
            + (
                f" from {res.cloud.label} at ${res.cloud.cost_usd_per_gpu_hour:,.4g}/GPU-hour"
                if res.cloud
                else ""
            ),
        ),  # fmt: skip
    ]
    for s, name in ((plan, "This plan"), (cloud, "All cloud"), (desk, "All desktop")):
        total = f"${s.total_usd:,.0f}" if s.feasible and s.total_usd is not None else None
        rows.append((name, total or (s.note or "not possible")))
    rows.append(("Electricity", f"${res.electricity_price_usd_per_kwh:,.4g}/kWh"))
    return rows


def plan_headline(res: PlanResult) -> str:
    """The plan in one sentence: what to buy, what to rent, its total beside the others."""
    if not res.feasible:
        return f"No plan meets the demand: {res.note or 'see the warnings'}"
    plan, cloud, desk = res.strategies
    labels = {d.id: d.label for d in res.desktops}
    bought = "; ".join(f"{p.units} x {labels[p.build_id]} in {p.month}" for p in res.purchases)
    others = "".join(
        f", vs ${s.total_usd:,.0f} {name}"
        for s, name in ((cloud, "all-cloud"), (desk, "all-desktop"))
        if s.feasible and s.total_usd is not None
    )
    return (
        f"Buy {bought or 'nothing'}, rent {plan.rented_gpu_hours:,.0f} GPU-hours: "
        f"${plan.total_usd or 0:,.0f} over {res.horizon_months} months{others}"
    )


def compute_plan_page(view: CatalogView, settings: Settings, form: CalculatorForm) -> PageResult:
    """The plan page for ``form`` and its HTTP status."""

    def compute(req: BaseModel) -> Answer:
        assert isinstance(req, PlanRequest)
        res = compute_plan(view, req, settings)
        chart = None
        if res.feasible:
            chart = inline_svg(charts_service.plan_chart_of(res, "svg").content.decode())
        return Answer(res, plan_headline(res), plan_figures(res), chart, req)

    return compute_page(view, form, compute)
