"""Calculator answers saved as scenarios (``POST /s``, ``GET /s/{id}``): each calculator
page, the scenario kind its answers are saved as, and how a saved page's form is read back. A saved answer
keeps the page's form as typed plus what the page chose for what it left out (the
comparable offer, pinned by its id), so it is recomputed on the same inputs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl

from pydantic import BaseModel

from app.catalog.view import CatalogView
from app.errors import InvalidRequest, NotFound
from app.render import pages, pages_compare, pages_plan, pages_run
from app.render.calculator import CalculatorForm, PageResult
from app.settings import Settings


def _as_is(view: CatalogView, form: CalculatorForm) -> None:
    """A page that chooses nothing for what its form leaves out (the engine's defaults,
    stated in the answer)."""


@dataclass(frozen=True)
class CalculatorPage:
    """A calculator page (each is served at its ``path`` and its answers can be saved): the
    scenario ``kind`` they are stored as (:data:`app.usecases.scenarios.KINDS`), how a query string makes its ``form``,
    its page, its ``prepare`` step (choices for what the form left out) and what it does, for
    its route's documentation (``summary``)."""

    path: str
    kind: str
    form: Callable[[Mapping[str, str]], CalculatorForm]
    compute: Callable[[CatalogView, Settings, CalculatorForm], PageResult]
    summary: str
    prepare: Callable[[CatalogView, CalculatorForm], None] = _as_is


PAGES = {
    s.path: s
    for s in (
        CalculatorPage(
            "/break-even", "break_even", pages.break_even_form, pages.compute_break_even_page,
            "The break-even calculator: a desktop against renting (an empty cloud side takes "
            "the comparable offer, said beside its field).",
            pages.with_cloud,
        ),
        CalculatorPage(
            "/run-cost", "run_cost", pages_run.run_cost_form, pages_run.compute_run_cost_page,
            "The run-cost calculator: one run of a benchmark or a timed job on cloud offers "
            "and a desktop, with its cost per item and per batch item.",
            pages_run.with_rentals,
        ),
        CalculatorPage(
            "/compare", "compare", pages_compare.compare_form, pages_compare.compute_compare_page,
            "The compare calculator: every offer and desktop build ranked for a month's work.",
        ),
        CalculatorPage(
            "/plan", "plan", pages_plan.plan_form, pages_plan.compute_plan_page,
            "The fleet plan calculator: what to buy, when, and what to rent for a month's "
            "work and its peaks (rows added by a button, without JavaScript).",
        ),
        CalculatorPage(
            "/carbon", "carbon", pages.carbon_form, pages.compute_carbon_page,
            "The carbon calculator: energy and emissions of GPUs over busy hours or a period.",
        ),
        CalculatorPage(
            "/llm", "llm_estimate", pages.llm_form, pages.compute_llm_page,
            "The LLM job calculator: memory per GPU, time and cost of a model's job on each GPU.",
        ),
    )
}  # fmt: skip


def form_of(path: str, query: str) -> tuple[CalculatorPage, CalculatorForm]:
    """The savable page at ``path`` and its form filled from ``query`` (a query string).
    Raises :class:`NotFound` (404) for a page whose answers cannot be saved."""
    savable = PAGES.get(path)
    if savable is None:
        raise NotFound(f"answers of '{path}' cannot be saved (pages: {', '.join(PAGES)})")
    return savable, savable.form(dict(parse_qsl(query)))


def request_of(view: CatalogView, savable: CalculatorPage, form: CalculatorForm) -> BaseModel:
    """The API request a filled form stands for, after its page's choices. Raises the
    catalog's errors (404) and :class:`InvalidRequest` (422) with each field's problem."""
    savable.prepare(view, form)
    req = form.request()
    if req is None:
        problems = "; ".join(f"{k or 'form'}: {v}" for k, v in form.errors.items())
        raise InvalidRequest(f"the form cannot be computed: {problems}")
    return req
