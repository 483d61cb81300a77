"""Saved scenarios as a use case: evaluate a request before it is stored, and re-evaluate a
stored one with the prices of a given day (a dated catalog view). The rows themselves are
:mod:`app.store.scenarios`."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine
from sqlmodel import Session

from app import usecases
from app.catalog.view import CatalogView
from app.errors import Forbidden
from app.models import Scenario
from app.models.break_even import BreakEvenRequest, BreakEvenResult
from app.models.run_cost import RunCostRequest, RunCostResult
from app.models.scenario import Owner, ScenarioCreate, ScenarioPublic, ScenarioResult
from app.settings import Settings
from app.store import scenarios as saved


def _evaluate(
    view: CatalogView, settings: Settings, kind: str, request: dict[str, Any]
) -> BreakEvenResult | RunCostResult:
    if kind == "break_even":
        return usecases.compute_break_even(view, BreakEvenRequest.model_validate(request), settings)
    return usecases.compute_run_cost(view, RunCostRequest.model_validate(request), settings)


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
    stored = req.model_dump(mode="json", exclude_unset=True)
    _evaluate(view, settings, kind, stored)
    row = Scenario(
        id=uuid.uuid4().hex,
        name=body.name,
        kind=kind,
        request=stored,
        created_at=dt.datetime.now(dt.UTC),
        owner_key_id=owner.key_id,
        owner_user=owner.user,
        lab=lab,
    )
    return saved.insert(engine, row, owner, settings.max_scenarios_per_key)


def result(
    session: Session, view: CatalogView, settings: Settings, scenario_id: str
) -> ScenarioResult:
    """The scenario's answer with the prices of ``view`` (its ``as_of``, else current);
    :class:`~app.errors.NotFound` (404) when there is no such scenario."""
    row = saved.get(session, scenario_id)
    answer = _evaluate(view, settings, row.kind, row.request)
    return ScenarioResult(
        scenario=saved.public(row),
        as_of=view.as_of,
        break_even=answer if isinstance(answer, BreakEvenResult) else None,
        run_cost=answer if isinstance(answer, RunCostResult) else None,
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
    """Store a calculator page's answer (``kind`` ``break_even`` or ``run_cost``, its API
    ``request``) with the page's form (``page_query``) for ``owner`` (a browser or a signed-in
    user), after evaluating it once as :func:`create` does. Raises the evaluation's errors
    and :class:`~app.errors.QuotaExceeded` (429) as :func:`create`."""
    stored = request.model_dump(mode="json", exclude_unset=True)
    _evaluate(view, settings, kind, stored)
    row = Scenario(
        id=uuid.uuid4().hex,
        name=name,
        kind=kind,
        request=stored,
        created_at=dt.datetime.now(dt.UTC),
        owner_user=owner.user,
        owner_browser=owner.browser,
        page_query=page_query,
    )
    return saved.insert(engine, row, owner, settings.max_scenarios_per_key)
