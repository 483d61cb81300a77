"""Saved scenarios: store a validated request, list, fetch, delete, and re-evaluate it with
the prices of a given day (a dated catalog view)."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from app import usecases
from app.catalog.view import CatalogView
from app.db import writer
from app.errors import NotFound, QuotaExceeded
from app.models import Scenario
from app.models.break_even import BreakEvenRequest, BreakEvenResult
from app.models.run_cost import RunCostRequest, RunCostResult
from app.models.scenario import ScenarioCreate, ScenarioKind, ScenarioPublic, ScenarioResult
from app.settings import Settings


def public(row: Scenario) -> ScenarioPublic:
    return ScenarioPublic(
        id=row.id,
        name=row.name,
        kind=cast(ScenarioKind, row.kind),  # written only as one of the two kinds
        request=row.request,
        created_at=row.created_at,
    )


def _evaluate(
    view: CatalogView, settings: Settings, kind: str, request: dict[str, Any]
) -> BreakEvenResult | RunCostResult:
    if kind == "break_even":
        return usecases.compute_break_even(view, BreakEvenRequest.model_validate(request), settings)
    return usecases.compute_run_cost(view, RunCostRequest.model_validate(request), settings)


def create(
    view: CatalogView, engine: Engine, settings: Settings, body: ScenarioCreate, owner: str
) -> ScenarioPublic:
    """Evaluate the request once with current prices (its 404/422 errors surface here, and
    nothing is stored), then store it as given, owned by the key ``owner``. Raises
    :class:`QuotaExceeded` (429) when the key already holds ``max_scenarios_per_key``."""
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
        owner_key_id=owner,
    )
    with Session(writer(engine)) as own:
        held = own.exec(
            select(func.count()).select_from(Scenario).where(Scenario.owner_key_id == owner)
        ).one()
        if held >= settings.max_scenarios_per_key:
            raise QuotaExceeded(
                f"this API key holds {held} scenarios, its quota "
                f"({settings.max_scenarios_per_key}): delete some before saving more",
                # The quota frees only when the key deletes scenarios, not with time: an hour
                # tells a client not to retry in a loop (RFC 9110 leaves the value to us).
                retry_after_s=3600,
            )
        own.add(row)
        own.commit()
        own.refresh(row)
        return public(row)


def get(session: Session, scenario_id: str) -> Scenario:
    row = session.get(Scenario, scenario_id)
    if row is None:
        raise NotFound(f"no scenario with id '{scenario_id}'")
    return row


def list_page(
    session: Session, owner: str, limit: int, offset: int
) -> tuple[Sequence[Scenario], int]:
    """The scenarios of the key ``owner``, newest first, and how many it holds."""
    mine = Scenario.owner_key_id == owner
    count = session.exec(select(func.count()).select_from(Scenario).where(mine)).one()
    stmt = select(Scenario).where(mine).order_by(col(Scenario.created_at).desc(), col(Scenario.id))
    return session.exec(stmt.limit(limit).offset(offset)).all(), count


def delete(engine: Engine, scenario_id: str, owner: str) -> None:
    """Delete the scenario if the key ``owner`` saved it; 404 otherwise (another key's
    scenario is not revealed)."""
    with Session(writer(engine)) as own:
        row = own.get(Scenario, scenario_id)
        if row is None or row.owner_key_id != owner:
            raise NotFound(f"no scenario with id '{scenario_id}' saved with this API key")
        own.delete(row)
        own.commit()


def result(
    session: Session, view: CatalogView, settings: Settings, scenario_id: str
) -> ScenarioResult:
    """The scenario's answer with the prices of ``view`` (its ``as_of``, else current)."""
    row = get(session, scenario_id)
    answer = _evaluate(view, settings, row.kind, row.request)
    return ScenarioResult(
        scenario=public(row),
        as_of=view.as_of,
        break_even=answer if isinstance(answer, BreakEvenResult) else None,
        run_cost=answer if isinstance(answer, RunCostResult) else None,
    )
