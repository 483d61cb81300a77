"""Calculator answers saved as scenarios (``POST /s``, ``GET /s/{id}``): which pages can be
saved, as which scenario kind, and how a saved page's form is read back. A saved answer
keeps the page's form as typed plus what the page chose for what it left out (the
comparable offer, pinned by its id), so it is recomputed on the same inputs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl

from pydantic import BaseModel

from app.catalog.view import CatalogView
from app.errors import InvalidRequest, NotFound
from app.render import pages, pages_run
from app.render.calculator import Calculator, CalculatorForm, PageResult
from app.settings import Settings


@dataclass(frozen=True)
class Savable:
    """A calculator whose answers can be saved: the scenario ``kind`` they are stored as,
    the page, its ``prepare`` step (choices for what the form left out) and its page."""

    kind: str
    calc: Calculator
    prepare: Callable[[CatalogView, CalculatorForm], None]
    compute: Callable[[CatalogView, Settings, CalculatorForm], PageResult]


SAVABLE = {
    s.calc.path: s
    for s in (
        Savable("break_even", pages.BREAK_EVEN, pages.with_cloud, pages.compute_break_even_page),
        Savable(
            "run_cost", pages_run.RUN_COST, pages_run.with_rentals, pages_run.compute_run_cost_page
        ),
    )
}


def form_of(path: str, query: str) -> tuple[Savable, CalculatorForm]:
    """The savable page at ``path`` and its form filled from ``query`` (a query string).
    Raises :class:`NotFound` (404) for a page whose answers cannot be saved."""
    savable = SAVABLE.get(path)
    if savable is None:
        raise NotFound(f"answers of '{path}' cannot be saved (pages: {', '.join(SAVABLE)})")
    return savable, CalculatorForm.from_query(savable.calc, dict(parse_qsl(query)))


def request_of(view: CatalogView, savable: Savable, form: CalculatorForm) -> BaseModel:
    """The API request a filled form stands for, after its page's choices. Raises the
    catalog's errors (404) and :class:`InvalidRequest` (422) with each field's problem."""
    savable.prepare(view, form)
    req = form.request()
    if req is None:
        problems = "; ".join(f"{k or 'form'}: {v}" for k, v in form.errors.items())
        raise InvalidRequest(f"the form cannot be computed: {problems}")
    return req
