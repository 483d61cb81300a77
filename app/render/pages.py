"""The web calculator's pages, server-rendered (no script: plain forms that work in any
browser): the front page and the break-even calculator. A calculator's form is a ``GET``, so
every answer has its own address to share and bookmark; the form's fields are the API's
request fields (``gpu``, ``total_price_usd``, ``offer_id``, ...), read by
:class:`BreakEvenForm`, and the answer is the API's (the same resolve and compose).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import orjson
from pydantic import ValidationError

from app import usecases
from app.catalog.view import CatalogView
from app.costing.errors import CostingError
from app.costing.sourced import Assumed
from app.errors import DomainError
from app.models.break_even import BreakEvenRequest, BreakEvenResult
from app.models.interpretation import CloudQuery
from app.render import charts as charts_service
from app.render.report_html import Money, _template, _value_text, inline_svg
from app.settings import Settings
from app.steps.offer_search import offer_for_desktop

# (name, label, kind, help): the few inputs most people change, then "more options".
MAIN_FIELDS = (
    ("gpu", "GPU", "text", "a catalog id or name, e.g. rtx-3090, 4090, h100 pcie"),
    ("gpu_count", "GPUs in the desktop", "number", "1-16"),
    ("total_price_usd", "Desktop price, USD", "number", "your quote; empty: the catalog's"),
    ("offer_id", "Cloud offer", "text", "a catalog offer id; empty: the comparable offer"),
    ("price_usd_per_hour", "or a cloud price, USD/h", "number", "instead of an offer"),
    ("utilization", "Utilization, %", "number", "share of the time the GPUs are busy"),
    ("electricity_price_usd_per_kwh", "Electricity, USD/kWh", "number", "empty: the region's"),
)
MORE_FIELDS = (
    ("region", "Region", "text", "e.g. de, us-ca, aws:eu-west-1"),
    ("condition", "Card bought", "select", "new or used; empty: the catalog's rule"),
    ("resell_after_years", "Resell after, years", "number", "empty: kept"),
    ("currency", "Currency", "text", "e.g. EUR, GBP; amounts are still entered in USD"),
)
FIELD_NAMES = tuple(f[0] for f in (*MAIN_FIELDS, *MORE_FIELDS))
# The engine's defaults shown in the empty fields (each answer lists them with their source):
# one GPU; seed 001's 15 % utilization (its PhD desktop) and $0.12/kWh when no region is given.
PLACEHOLDERS = {"gpu_count": "1", "utilization": "15", "electricity_price_usd_per_kwh": "0.12"}
# The request field each form field fills (the rest are top-level request fields).
_DESKTOP = {"gpu", "gpu_count", "total_price_usd", "condition", "resell_after_years"}
_CLOUD = {"offer_id", "price_usd_per_hour"}
_NUMBERS = {f[0] for f in (*MAIN_FIELDS, *MORE_FIELDS) if f[2] == "number"}


@dataclass
class BreakEvenForm:
    """The break-even form as typed (strings by field name), the errors to show beside each
    field (``errors``; ``""`` for the form as a whole) and the choices made for what it left
    out (``chosen``: field -> (value, why))."""

    values: dict[str, str]
    errors: dict[str, str] = field(default_factory=dict)
    chosen: dict[str, tuple[str, str]] = field(default_factory=dict)

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> BreakEvenForm:
        """The form's fields from a query string (unknown parameters are left out)."""
        return cls({k: query[k].strip() for k in FIELD_NAMES if query.get(k, "").strip()})

    @property
    def asked(self) -> bool:
        """Whether anything was entered (an empty form shows no answer)."""
        return bool(self.values)

    def body(self) -> dict[str, Any]:
        """The API request the form stands for: numbers read as numbers (a field that is not
        one stays text, and the model's validation says so beside it), ``utilization`` from
        a percentage."""
        typed: dict[str, Any] = dict(self.values)
        for name in _NUMBERS & typed.keys():
            with contextlib.suppress(ValueError):
                number = float(typed[name])
                typed[name] = int(number) if number.is_integer() else number
        if isinstance(typed.get("utilization"), int | float):
            typed["utilization"] = typed["utilization"] / 100
        desktop = {k: v for k, v in typed.items() if k in _DESKTOP}
        cloud = {k: v for k, v in typed.items() if k in _CLOUD}
        top = {k: v for k, v in typed.items() if k not in _DESKTOP | _CLOUD}
        return {"desktop": desktop, "cloud": cloud, **top}

    def request(self) -> BreakEvenRequest | None:
        """The validated request, or None with each problem in ``errors`` by field."""
        try:
            return BreakEvenRequest.model_validate(self.body())
        except ValidationError as exc:
            for e in exc.errors():
                name = next((str(p) for p in reversed(e["loc"]) if str(p) in FIELD_NAMES), "")
                where = "cloud" if "cloud" in e["loc"] and not name else name
                self.errors[where if where in FIELD_NAMES else ""] = e["msg"]
            return None

    def link(self) -> str:
        """This form's address (a permalink to its answer)."""
        return "/break-even?" + urlencode(self.values)


def _figures(res: BreakEvenResult, money: Money) -> list[tuple[str, str]]:
    d, c = res.desktop, res.cloud
    rows = [
        ("Desktop", f"{d.gpu_count}x {d.gpu_id or 'GPU'}, {money(d.upfront_usd)} upfront"),
        ("Cloud", f"{c.offer_id or 'the price given'}, {money(c.price_usd_per_hour)}/h"),
        ("Utilization", f"{res.utilization:.0%}"),
        ("Electricity", f"{money(d.electricity_price_usd_per_kwh)}/kWh"),
        ("Desktop per year", f"{money(d.cost_usd_per_year)} ({d.energy_kwh_per_year:,.0f} kWh)"),
        ("Cloud per year", money(c.cost_usd_per_year)),
    ]
    return rows


def headline(res: BreakEvenResult) -> str:
    """The answer in one sentence, with the age of the oldest price it rests on."""
    days = res.break_even_days
    text = (
        f"Break-even after {days:,.2f} days"
        if days is not None
        else f"The desktop never pays for itself: {res.break_even_reason or 'cloud is cheaper'}"
    )
    p = res.prices
    if p.oldest_price_age_days is not None and p.oldest_price_age_days > 365:
        years = p.oldest_price_age_days / 365.25
        text += f" (rests on a price from {p.oldest_price_date}, {years:.1f} years old: {p.oldest_price})"
    return text


def break_even_page(
    form: BreakEvenForm,
    res: BreakEvenResult | None,
    chart_svg: str | None,
    *,
    data_version: str,
    today: dt.date,
    request_json: str = "",
) -> bytes:
    """The break-even calculator: the form (values kept, errors beside their fields) and,
    when computed, the answer, chart, assumptions, sources and how to cite it."""
    context: dict[str, Any] = {
        "form": form,
        "main_fields": MAIN_FIELDS,
        "placeholders": PLACEHOLDERS,
        "more_fields": MORE_FIELDS,
        "more_open": any(k in form.values or k in form.errors for k, *_ in MORE_FIELDS),
        "res": res,
        "chart_svg": chart_svg,
        "data_version": data_version,
        "today": today.isoformat(),
        "value_text": _value_text,
        "request_json": request_json,
    }
    if res is not None:
        money = Money(res.currency_rate)
        context |= {"headline": headline(res), "figures": _figures(res, money), "money": money}
    return _template("break_even_page.html.j2").render(**context).encode()


def front_page(gpus: int, offers: int, providers: int) -> bytes:
    """The front page: what gpucost answers and links to the calculators and the API."""
    return _template("index.html.j2").render(gpus=gpus, offers=offers, providers=providers).encode()


def _with_cloud(view: CatalogView, form: BreakEvenForm) -> None:
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


def compute_break_even_page(
    view: CatalogView, settings: Settings, form: BreakEvenForm
) -> tuple[bytes, int]:
    """The calculator page for ``form`` and its HTTP status: the answer (200), or the form
    with each problem beside its field (422, or the problem's own status: 404 for a name
    the catalog does not know)."""
    today = dt.datetime.now(dt.UTC).date()
    version = str(view.revision)
    if not form.asked:
        return break_even_page(form, None, None, data_version=version, today=today), 200
    try:
        _with_cloud(view, form)
        req = form.request()
        if req is None:
            return break_even_page(form, None, None, data_version=version, today=today), 422
        res = usecases.compute_break_even(view, req, settings)
    except DomainError as exc:
        form.errors[""] = exc.detail
        return break_even_page(form, None, None, data_version=version, today=today), exc.status
    except CostingError as exc:
        form.errors[exc.field if exc.field in FIELD_NAMES else ""] = exc.message
        return break_even_page(form, None, None, data_version=version, today=today), 422
    chart = inline_svg(charts_service.cumulative_from_result(res, None, "svg").content.decode())
    body = req.model_dump(mode="json", exclude_unset=True, exclude_none=True)
    request_json = orjson.dumps(body, option=orjson.OPT_INDENT_2).decode()
    page = break_even_page(
        form, res, chart, data_version=version, today=today, request_json=request_json
    )
    return page, 200
