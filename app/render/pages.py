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
from app.costing import defaults
from app.costing.errors import CostingError
from app.costing.sourced import Assumed
from app.errors import DomainError
from app.models.break_even import BreakEvenRequest, BreakEvenResult
from app.models.inputs import DesktopSpec
from app.models.interpretation import CloudQuery
from app.query.answer_common import dated_note
from app.query.answer_costs import break_even_facts
from app.render import charts as charts_service
from app.render.report_html import inline_svg, template, value_text
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


def headline(res: BreakEvenResult) -> str:
    """The answer in one sentence, to the hundredth of a day, with the date and age of the
    oldest price it rests on when that is older than the freshness policy (chat's words,
    :func:`app.query.answer_common.dated_note`)."""
    days = res.break_even_days
    if days is None:
        return f"The desktop never pays for itself: {res.break_even_reason}"
    return f"Break-even after {days:,.2f} days{dated_note(res)}"


def break_even_page(
    form: BreakEvenForm,
    res: BreakEvenResult | None,
    *,
    data_version: str,
    today: dt.date,
    chart_svg: str | None = None,
    request_json: str = "",
    placeholders: dict[str, str] | None = None,
) -> bytes:
    """The break-even calculator: the form (values kept, errors beside their fields) and,
    when computed, the answer, chart, assumptions, sources and how to cite it."""
    context: dict[str, Any] = {
        "form": form,
        "main_fields": MAIN_FIELDS,
        "placeholders": placeholders or {},
        "more_fields": MORE_FIELDS,
        "more_open": any(k in form.values or k in form.errors for k, *_ in MORE_FIELDS),
        "res": res,
        "chart_svg": chart_svg,
        "data_version": data_version,
        "today": today.isoformat(),
        "value_text": value_text,
        "request_json": request_json,
    }
    if res is not None:
        context |= {"headline": headline(res), "figures": break_even_facts(res)}
    return template("break_even_page.html.j2").render(**context).encode()


def front_page(gpus: int, offers: int, providers: int) -> bytes:
    """The front page: what gpucost answers and links to the calculators and the API."""
    return template("index.html.j2").render(gpus=gpus, offers=offers, providers=providers).encode()


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


def placeholders(view: CatalogView) -> dict[str, str]:
    """The engine's defaults, shown in the fields a form leaves empty (each answer lists
    them with their source): one GPU, the default utilization profile's share and the
    default electricity price (seed 001's 15 % and $0.12/kWh, from the defaults registry)."""
    gpus = DesktopSpec.model_fields["gpu_count"].default
    profile = view.profiles.get(str(defaults.UTILIZATION_PROFILE.value))
    shown = {
        "gpu_count": str(gpus),
        "electricity_price_usd_per_kwh": f"{defaults.ELECTRICITY_PRICE.number:g}",
    }
    if profile is not None:
        shown["utilization"] = f"{profile.utilization * 100:g}"
    return shown


def compute_break_even_page(
    view: CatalogView, settings: Settings, form: BreakEvenForm
) -> tuple[bytes, int]:
    """The calculator page for ``form`` and its HTTP status: the answer (200), or the form
    with each problem beside its field (422, or the problem's own status: 404 for a name
    the catalog does not know)."""
    today = dt.datetime.now(dt.UTC).date()

    def page(status: int, res: BreakEvenResult | None = None, **answer: Any) -> tuple[bytes, int]:
        content = break_even_page(
            form,
            res,
            data_version=str(view.revision),
            today=today,
            placeholders=placeholders(view),
            **answer,
        )
        return content, status

    if not form.asked:
        return page(200)
    try:
        _with_cloud(view, form)
        req = form.request()
        if req is None:
            return page(422)
        res = usecases.compute_break_even(view, req, settings)
    except DomainError as exc:
        form.errors[""] = exc.detail
        return page(exc.status)
    except CostingError as exc:
        form.errors[exc.field if exc.field in FIELD_NAMES else ""] = exc.message
        return page(422)
    chart = inline_svg(charts_service.cumulative_from_result(res, None, "svg").content.decode())
    body = req.model_dump(mode="json", exclude_unset=True, exclude_none=True)
    request_json = orjson.dumps(body, option=orjson.OPT_INDENT_2).decode()
    return page(200, res, chart_svg=chart, request_json=request_json)
