"""What every calculator page shares (plain ``GET`` forms that work in any
browser, so every answer has its own address to share and bookmark): the form's fields as
the API's request fields, read from the query string into the request model, with each
validation problem beside its field; and the page around the answer (headline, key figures,
chart, assumptions, sources, how to cite).

A :class:`Calculator` describes one page: its address, its fields (the few most people
change, then "more options") and how the typed values make its API request
(:attr:`Calculator.shape`). :class:`CalculatorForm` is one filled form.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import orjson
from pydantic import BaseModel, ValidationError

from app.render import report_tables as tables
from app.render.report_html import template, value_text

# (name, label, kind, help): kind is "text", "number" or "select" (new / used).
Field = tuple[str, str, str, str]
# The files an answer downloads as, and their media types.
DOWNLOADS = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


@dataclass(frozen=True)
class PageResult:
    """What a calculator answers: ``content`` with its HTTP ``status`` and ``media_type``,
    and a ``filename`` when it is a download."""

    content: bytes
    status: int
    media_type: str = "text/html; charset=utf-8"
    filename: str | None = None


@dataclass(frozen=True)
class Calculator:
    """One calculator page: ``path`` (its address), ``title``, ``template`` (a Jinja template
    extending ``_calculator.html.j2``), ``main`` and ``more`` fields, the request ``model``,
    ``shape`` (typed values by field name -> the request body), ``percent`` (fields typed
    in %, sent as fractions), ``locate`` (where a problem in a list belongs) and ``extra``
    (what the page's template needs besides)."""

    path: str
    title: str
    template: str
    main: tuple[Field, ...]
    more: tuple[Field, ...]
    model: type[BaseModel]
    shape: Callable[[dict[str, Any]], dict[str, Any]]
    percent: frozenset[str] = frozenset({"utilization"})
    # The field a validation problem's location is about, when the location's own names do
    # not say it (rows of a list): (loc, the form's values) -> field name, or None.
    locate: Callable[[tuple[Any, ...], Mapping[str, str]], str | None] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)  # for the page's template

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f[0] for f in (*self.main, *self.more))

    @property
    def numbers(self) -> frozenset[str]:
        return frozenset(f[0] for f in (*self.main, *self.more) if f[2] == "number")


@dataclass(frozen=True)
class SavedPage:
    """A saved answer a page shows (``GET /s/{id}``): its id, name, the day it was saved
    (its prices are that day's) and whether the browser looking at it saved it (and so may
    delete it)."""

    id: str
    name: str
    saved_on: dt.date
    owned: bool


@dataclass
class CalculatorForm:
    """A calculator's form as typed (strings by field name), the errors to show beside each
    field (``errors``; ``""`` for the form as a whole) and the choices made for what it left
    out (``chosen``: field -> (value, why))."""

    calc: Calculator
    values: dict[str, str]
    errors: dict[str, str] = field(default_factory=dict)
    chosen: dict[str, tuple[str, str]] = field(default_factory=dict)
    download: str | None = None  # "csv" or "xlsx": the answer as a file instead of a page
    # The browser's token for forms that write (saving, deleting): set by the router; the
    # save form is shown with it.
    csrf: str | None = None
    saved: SavedPage | None = None  # when the page shows a saved answer

    @classmethod
    def from_query(cls, calc: Calculator, query: Mapping[str, str]) -> CalculatorForm:
        """The form's fields from a query string (unknown parameters are left out), and
        ``download=csv|xlsx`` when the answer is asked for as a file."""
        values = {k: query[k].strip() for k in calc.names if query.get(k, "").strip()}
        download = query.get("download")
        return cls(calc, values, download=download if download in DOWNLOADS else None)

    @property
    def asked(self) -> bool:
        """Whether anything was entered (an empty form shows no answer)."""
        return bool(self.values)

    def typed(self) -> dict[str, Any]:
        """The values with numbers read as numbers (a field that is not one stays text, and
        the model's validation says so beside it) and percentages as fractions."""
        typed: dict[str, Any] = dict(self.values)
        for name in self.calc.numbers & typed.keys():
            with contextlib.suppress(ValueError):
                number = float(typed[name])
                typed[name] = int(number) if number.is_integer() else number
        for name in self.calc.percent & typed.keys():
            if isinstance(typed[name], int | float):
                typed[name] = typed[name] / 100
        return typed

    def body(self) -> dict[str, Any]:
        """The API request the form stands for."""
        return self.calc.shape(self.typed())

    def request(self) -> BaseModel | None:
        """The validated request, or None with each problem in ``errors`` by field."""
        try:
            return self.calc.model.model_validate(self.body())
        except ValidationError as exc:
            for e in exc.errors():
                located = self.calc.locate(e["loc"], self.values) if self.calc.locate else None
                name = located or next(
                    (str(p) for p in reversed(e["loc"]) if str(p) in self.calc.names), ""
                )
                where = "cloud" if "cloud" in e["loc"] and not name else name
                self.errors[where if where in self.calc.names else ""] = e["msg"]
            return None

    def link(self) -> str:
        """This form's address (a permalink to its answer on today's prices)."""
        return f"{self.calc.path}?{urlencode(self.values)}"

    def query(self) -> str:
        """This form's values as a query string."""
        return urlencode(self.values)

    def cite_link(self) -> str:
        """The address to cite: the saved answer's (its prices stay those of the day it was
        saved), else the form's."""
        return f"/s/{self.saved.id}" if self.saved else self.link()


@dataclass(frozen=True)
class Answer:
    """A computed answer as a page shows it: the result (its ``assumptions``, ``sources``,
    ``warnings`` and ``prices``), the headline, the key figures, the chart (inline SVG) and
    the request as JSON."""

    result: Any
    headline: str
    figures: list[tuple[str, str]]
    chart_svg: str | None
    request: BaseModel


def render(
    form: CalculatorForm,
    answer: Answer | None,
    *,
    data_version: str,
    today: dt.date,
    placeholders: dict[str, str] | None = None,
) -> bytes:
    """The calculator page: the form (values kept, errors beside their fields) and, when
    computed, the answer, chart, assumptions, sources and how to cite it."""
    calc = form.calc
    request_json = ""
    if answer is not None:
        body = answer.request.model_dump(mode="json", exclude_unset=True, exclude_none=True)
        request_json = orjson.dumps(body, option=orjson.OPT_INDENT_2).decode()
    context: dict[str, Any] = {
        **calc.extra,
        "calc": calc,
        "form": form,
        "main_fields": calc.main,
        "more_fields": calc.more,
        "placeholders": placeholders or {},
        "more_open": any(k in form.values or k in form.errors for k, *_ in calc.more),
        "answer": answer,
        "res": answer.result if answer else None,
        "data_version": data_version,
        "today": today.isoformat(),
        "value_text": value_text,
        "request_json": request_json,
    }
    return template(calc.template).render(**context).encode()


def download(
    form: CalculatorForm, answer: Answer, *, data_version: str, today: dt.date
) -> PageResult:
    """The answer as the file ``form.download`` names (CSV or XLSX): headline, key figures,
    assumptions, sources and how to cite it (:func:`app.render.report_tables.answer_rows`)."""
    res = answer.result
    cite = [
        ("catalog revision", data_version),
        ("prices as of", str(res.prices.prices_as_of)),
        ("computed", today.isoformat()),
        ("address", form.cite_link()),
    ]
    if form.saved:
        cite.insert(0, ("saved answer", f"{form.saved.name}, saved on {form.saved.saved_on}"))
    rows = tables.answer_rows(answer.headline, answer.figures, res.assumptions, res.sources, cite)
    fmt = form.download or "csv"
    content = (
        tables.answer_csv(rows) if fmt == "csv" else tables.answer_workbook(rows, res.warnings)
    )
    name = f"gpucost{form.calc.path.replace('/', '-')}-{today.isoformat()}.{fmt}"
    return PageResult(content, 200, DOWNLOADS[fmt], name)


def front_page(gpus: int, offers: int, providers: int) -> bytes:
    """The front page: what gpucost answers and links to the calculators and the API."""
    return template("index.html.j2").render(gpus=gpus, offers=offers, providers=providers).encode()
