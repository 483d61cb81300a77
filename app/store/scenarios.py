"""Saved scenarios in the database: insert within a key's quota, list, fetch and delete,
each one transaction. Evaluating a scenario is :mod:`app.usecases.scenarios`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from app.db import write_session
from app.errors import NotFound, QuotaExceeded
from app.models import Scenario
from app.models.scenario import ScenarioKind, ScenarioPublic


def public(row: Scenario) -> ScenarioPublic:
    """The row as the API shows it (without its owner)."""
    return ScenarioPublic(
        id=row.id,
        name=row.name,
        kind=cast(ScenarioKind, row.kind),  # written only as one of the two kinds
        request=row.request,
        created_at=row.created_at,
    )


def insert(engine: Engine, row: Scenario, quota: int) -> ScenarioPublic:
    """Store ``row`` unless its owner already holds ``quota`` scenarios: the count and the
    insert are one writer transaction, so concurrent creates cannot pass the quota together.
    Raises :class:`QuotaExceeded` (429)."""
    owner = row.owner_key_id
    with write_session(engine) as own:
        held = own.exec(
            select(func.count()).select_from(Scenario).where(Scenario.owner_key_id == owner)
        ).one()
        if held >= quota:
            raise QuotaExceeded(
                f"this API key holds {held} scenarios, its quota "
                f"({quota}): delete some before saving more",
                # The quota frees only when the key deletes scenarios, not with time: an hour
                # tells a client not to retry in a loop (RFC 9110 leaves the value to us).
                retry_after_s=3600,
            )
        own.add(row)
        own.commit()
        own.refresh(row)
        return public(row)


def get(session: Session, scenario_id: str) -> Scenario:
    """The scenario ``scenario_id``; :class:`NotFound` (404) when there is none."""
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
    with write_session(engine) as own:
        row = own.get(Scenario, scenario_id)
        if row is None or row.owner_key_id != owner:
            raise NotFound(f"no scenario with id '{scenario_id}' saved with this API key")
        own.delete(row)
        own.commit()
