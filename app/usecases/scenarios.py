"""Saved scenarios as a use case: evaluate a request before it is stored, and re-evaluate a
stored one with the prices of a given day (a dated catalog view). The rows themselves are
:mod:`app.store.scenarios`."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine
from sqlmodel import Session

from app import usecases
from app.catalog.view import CatalogView
from app.errors import Forbidden
from app.models import Scenario
from app.models.break_even import BreakEvenRequest
from app.models.carbon import CarbonRequest
from app.models.compare import CompareRequest
from app.models.llm import LlmEstimateRequest
from app.models.plan import PlanRequest
from app.models.run_cost import RunCostRequest
from app.models.scenario import Owner, ScenarioCreate, ScenarioPublic, ScenarioResult
from app.settings import Settings
from app.store import scenarios as saved
from app.usecases.compare import compute_compare
from app.usecases.llm_estimate import compute_llm_estimate
from app.usecases.plan_answer import compute_plan

# Each scenario kind: its request model and the use case that answers it.
KINDS: dict[str, tuple[type[BaseModel], Callable[[CatalogView, Any, Settings], BaseModel]]] = {
    "break_even": (BreakEvenRequest, usecases.compute_break_even),
    "run_cost": (RunCostRequest, usecases.compute_run_cost),
    "compare": (CompareRequest, compute_compare),
    "plan": (PlanRequest, compute_plan),
    "carbon": (CarbonRequest, usecases.compute_carbon),
    "llm_estimate": (LlmEstimateRequest, compute_llm_estimate),
}


def _evaluate(
    view: CatalogView, settings: Settings, kind: str, request: dict[str, Any]
) -> BaseModel:
    """The answer to a stored ``request`` of ``kind`` (one of :data:`KINDS`)."""
    model, compute = KINDS[kind]
    return compute(view, model.model_validate(request), settings)


def create(
    view: CatalogView,
    engine: Engine,
    settings: Settings,
    body: ScenarioCreate,
    owner: Owner,
    lab: str | None = None,
) -> ScenarioPublic:
    """Evaluate the request once with current prices (its 404/422 errors surface here, and
    nothing is stored), then store it as given, owned by ``owner`` and shared with ``lab``.
    Raises :class:`~app.errors.Forbidden` (403) for a lab the owner is not a member of (a key
    is a member of none) and :class:`~app.errors.QuotaExceeded` (429) when the owner already
    holds ``max_scenarios_per_key``."""
    if lab is not None and lab not in owner.labs:
        raise Forbidden(
            f"{owner.describe()} is not a member of lab '{lab}' (its labs: "
            f"{', '.join(owner.labs) or 'none'})"
        )
    kind = "break_even" if body.break_even is not None else "run_cost"
    req = body.break_even or body.run_cost
    assert req is not None
    return _store(
        view, engine, settings, req, owner, name=body.name, kind=kind, owner_key_id=owner.key_id,
        lab=lab,
    )  # fmt: skip


def _store(
    view: CatalogView,
    engine: Engine,
    settings: Settings,
    req: BaseModel,
    owner: Owner,
    **row: Any,
) -> ScenarioPublic:
    """Evaluate ``req`` once with the prices of ``view`` (its 404/422 errors surface here,
    and nothing is stored), then store it as given with the scenario's other columns
    (``row``: its name, kind, ...), a new id, the time and ``owner``'s user, within their
    quota (:class:`~app.errors.QuotaExceeded`, 429)."""
    stored = req.model_dump(mode="json", exclude_unset=True)
    _evaluate(view, settings, row["kind"], stored)
    scenario = Scenario(
        id=uuid.uuid4().hex,
        request=stored,
        created_at=dt.datetime.now(dt.UTC),
        owner_user=owner.user,
        **row,
    )
    return saved.insert(engine, scenario, owner, settings.max_scenarios_per_key)


def result(
    session: Session, view: CatalogView, settings: Settings, scenario_id: str
) -> ScenarioResult:
    """The scenario's answer with the prices of ``view`` (its ``as_of``, else current);
    :class:`~app.errors.NotFound` (404) when there is no such scenario."""
    row = saved.get(session, scenario_id)
    answer = _evaluate(view, settings, row.kind, row.request)
    # The answer goes in the field named as its kind; the others are null.
    fields: dict[str, Any] = {"break_even": None, "run_cost": None, row.kind: answer}
    return ScenarioResult.model_validate(
        {"scenario": saved.public(row), "as_of": view.as_of, **fields}
    )


def save_page(
    view: CatalogView,
    engine: Engine,
    settings: Settings,
    kind: str,
    request: BaseModel,
    *,
    name: str,
    owner: Owner,
    page_query: str,
) -> ScenarioPublic:
    """Store a calculator page's answer (``kind``, one of :data:`KINDS`; its API
    ``request``) with the page's form (``page_query``) for ``owner`` (a browser or a signed-in
    user), after evaluating it once as :func:`create` does. Raises the evaluation's errors
    and :class:`~app.errors.QuotaExceeded` (429) as :func:`create`."""
    return _store(
        view, engine, settings, request, owner, name=name, kind=kind,
        owner_browser=owner.browser, page_query=page_query, catalog_revision=view.revision,
    )  # fmt: skip
